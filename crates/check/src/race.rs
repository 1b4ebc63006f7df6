//! Placeholder: being written (no findings yet).

use warpcheck_emu::{Observer, ObserverFactory, RunOutcome};
use warpcheck_report::Finding;

use crate::{LaunchInfo, ReportCx};

pub struct RaceState {}

impl RaceState {
    pub fn new(_intra_warp: crate::IntraWarp) -> RaceState {
        RaceState {}
    }

    pub fn launch(&mut self, _info: &LaunchInfo) -> RaceLaunch<'_> {
        RaceLaunch { _state: self }
    }

    pub fn findings(&self, _cx: &ReportCx) -> Vec<Finding> {
        Vec::new()
    }
}

pub struct RaceLaunch<'s> {
    _state: &'s mut RaceState,
}

impl RaceLaunch<'_> {
    pub fn finish(self, _info: &LaunchInfo, _outcome: &RunOutcome) {}
}

pub struct RaceBlock {}

impl Observer for RaceBlock {}

impl ObserverFactory for RaceLaunch<'_> {
    type Observer = RaceBlock;
    fn create(&self, _block: [u32; 3]) -> RaceBlock {
        RaceBlock {}
    }
    fn merge(&mut self, _observers: Vec<([u32; 3], RaceBlock)>) {}
}
