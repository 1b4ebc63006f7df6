//! Placeholder: being written (no findings yet).

use warpcheck_emu::{Observer, ObserverFactory, RunOutcome};
use warpcheck_report::Finding;

use crate::{LaunchInfo, ReportCx};

#[derive(Default)]
pub struct CoalesceState {}

impl CoalesceState {
    pub fn launch(&mut self, _info: &LaunchInfo) -> CoalesceLaunch<'_> {
        CoalesceLaunch { _state: self }
    }

    pub fn findings(&self, _cx: &ReportCx) -> Vec<Finding> {
        Vec::new()
    }
}

pub struct CoalesceLaunch<'s> {
    _state: &'s mut CoalesceState,
}

impl CoalesceLaunch<'_> {
    pub fn finish(self, _info: &LaunchInfo, _outcome: &RunOutcome) {}
}

pub struct CoalesceBlock {}

impl Observer for CoalesceBlock {}

impl ObserverFactory for CoalesceLaunch<'_> {
    type Observer = CoalesceBlock;
    fn create(&self, _block: [u32; 3]) -> CoalesceBlock {
        CoalesceBlock {}
    }
    fn merge(&mut self, _observers: Vec<([u32; 3], CoalesceBlock)>) {}
}

impl CoalesceState {
    /// Adds this checker's counts for `k.kernel` to `k`.
    pub fn add_totals(&self, _k: &mut crate::KernelTotals) {}
}
