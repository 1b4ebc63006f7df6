//! Placeholder: being written (no findings yet).

use warpcheck_emu::{Observer, ObserverFactory, RunOutcome};
use warpcheck_report::Finding;

use crate::{LaunchInfo, ReportCx};

#[derive(Default)]
pub struct SyncState {}

impl SyncState {
    pub fn launch(&mut self, _info: &LaunchInfo) -> SyncLaunch<'_> {
        SyncLaunch { _state: self }
    }

    pub fn findings(&self, _cx: &ReportCx) -> Vec<Finding> {
        Vec::new()
    }
}

pub struct SyncLaunch<'s> {
    _state: &'s mut SyncState,
}

impl SyncLaunch<'_> {
    pub fn finish(self, _info: &LaunchInfo, _outcome: &RunOutcome) {}
}

pub struct SyncBlock {}

impl Observer for SyncBlock {}

impl ObserverFactory for SyncLaunch<'_> {
    type Observer = SyncBlock;
    fn create(&self, _block: [u32; 3]) -> SyncBlock {
        SyncBlock {}
    }
    fn merge(&mut self, _observers: Vec<([u32; 3], SyncBlock)>) {}
}
