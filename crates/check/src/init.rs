//! Placeholder: being written (no findings yet).

use warpcheck_emu::{Observer, ObserverFactory, RunOutcome};
use warpcheck_report::Finding;

use crate::{LaunchInfo, ReportCx};

#[derive(Default)]
pub struct InitState {}

impl InitState {
    pub fn launch(&mut self, _info: &LaunchInfo) -> InitLaunch<'_> {
        InitLaunch { _state: self }
    }

    pub fn findings(&self, _cx: &ReportCx) -> Vec<Finding> {
        Vec::new()
    }
}

pub struct InitLaunch<'s> {
    _state: &'s mut InitState,
}

impl InitLaunch<'_> {
    pub fn finish(self, _info: &LaunchInfo, _outcome: &RunOutcome) {}
}

pub struct InitBlock {}

impl Observer for InitBlock {}

impl ObserverFactory for InitLaunch<'_> {
    type Observer = InitBlock;
    fn create(&self, _block: [u32; 3]) -> InitBlock {
        InitBlock {}
    }
    fn merge(&mut self, _observers: Vec<([u32; 3], InitBlock)>) {}
}

impl InitState {
    /// Records the initialisation state of allocations made since the last launch.
    pub fn prepare(&mut self, _memory: &warpcheck_emu::GlobalMemory) {}
}
