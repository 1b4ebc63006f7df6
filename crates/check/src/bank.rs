//! Placeholder: being written (no findings yet).

use warpcheck_emu::{Observer, ObserverFactory, RunOutcome};
use warpcheck_report::Finding;

use crate::{LaunchInfo, ReportCx};

#[derive(Default)]
pub struct BankState {}

impl BankState {
    pub fn launch(&mut self, _info: &LaunchInfo) -> BankLaunch<'_> {
        BankLaunch { _state: self }
    }

    pub fn findings(&self, _cx: &ReportCx) -> Vec<Finding> {
        Vec::new()
    }
}

pub struct BankLaunch<'s> {
    _state: &'s mut BankState,
}

impl BankLaunch<'_> {
    pub fn finish(self, _info: &LaunchInfo, _outcome: &RunOutcome) {}
}

pub struct BankBlock {}

impl Observer for BankBlock {}

impl ObserverFactory for BankLaunch<'_> {
    type Observer = BankBlock;
    fn create(&self, _block: [u32; 3]) -> BankBlock {
        BankBlock {}
    }
    fn merge(&mut self, _observers: Vec<([u32; 3], BankBlock)>) {}
}

impl BankState {
    /// Adds this checker's counts for `k.kernel` to `k`.
    pub fn add_totals(&self, _k: &mut crate::KernelTotals) {}
}
