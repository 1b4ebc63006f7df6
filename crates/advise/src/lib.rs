//! warpcheck's porting advisor (Juravle, "Automatic program analysis for data
//! parallel kernels", 2011): for each loop nest of a sequential C function, whether it can
//! become a GPU kernel and how.
//!
//! ```text
//! C function (-O0 PTX .func) ──warpcheck-lint──> symbolic accesses, loops, cells
//!   ──facts──────> named bases (c->data), trip counts, inductions, parameter cells, calls
//!   ──advisor────> verdict (§4.1), inbound/outbound sections (§4.2), coalescing per
//!                  mapping (§5.1), shared-memory tiles (§5.2), instantiation (§6)
//! ```
//!
//! * [`source`]: what comes from the C text (struct layouts, `for` headers, white-list);
//! * [`range`]: symbolic ranges over a box of loop counters;
//! * [`facts`]: the analysis results with names;
//! * [`advisor`]: the analyses and [`advise`];
//! * [`model`]: the report; [`render`]: its text form (Table 9.1).
//!
//! No I/O: the caller compiles the C file (`warpcheck-front`, at `-O0` so that loops and
//! variables keep their source shape) and passes the source text.

pub mod advisor;
pub mod emit;
pub mod facts;
pub mod model;
pub mod range;
pub mod render;
pub mod source;

pub use advisor::{AdviseError, AdviseOptions, AnalysisBudget, DEFAULT_STEPS_PER_NEST, advise};
pub use model::FunctionAdvice;
