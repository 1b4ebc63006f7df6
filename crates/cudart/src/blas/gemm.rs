//! The arithmetic of every GEMM entry point (`cublasSgemm`, `Dgemm`, `GemmEx`, the strided
//! batched forms, `cublasLtMatmul`):
//! `D = epilogue(alpha * op(A) * op(B) + beta * C)`, column by column of each matrix of
//! the batch, on the host CPU.
//!
//! The operands' extents are read from device memory in one piece each and converted to
//! the compute type (f32, or f64 for double precision); `matrixmultiply`'s GEMM then runs
//! on them with the strides that the layout and the operation give (a transpose swaps
//! the row and column strides), into an `m x n` scratch matrix that holds `beta * C`
//! first. The epilogue (bias, ReLU, GELU, auxiliary output) runs on the scratch matrix,
//! which is converted to `D`'s type and written column by column (row by row for a
//! row-major `D`), leaving the padding between columns untouched.
//!
//! Reduced precision ([`round_inputs`]): with `CUBLAS_COMPUTE_32F_FAST_TF32` (cuBLASLt,
//! `cublasGemmEx`) or `CUBLAS_TF32_TENSOR_OP_MATH` on the handle (`cublasSgemm`,
//! `cublasSgemmStridedBatched`, and `cublasGemmEx` with `CUBLAS_COMPUTE_32F`), every
//! element of A and B is rounded to TF32 before the products: the 13 low fraction bits
//! are rounded off to nearest, ties away from zero, as PTX's `cvt.rna.tf32.f32` does
//! (infinities and NaNs are kept). Products and sums stay f32, as tensor cores
//! accumulate in f32; alpha, beta, C and the epilogue are f32. A GPU's tensor-core kernel
//! may instead truncate the inputs, and sums in another order, so results agree with a
//! GPU's to TF32 accuracy, not bit for bit. `CUBLAS_COMPUTE_32F_FAST_16F` and
//! `_FAST_16BF` round the inputs to f16 or bf16 (to nearest even) the same way.

use half::{bf16, f16};

use super::extent::Matrix;
use super::types::{Elem, Precision, STATUS_INTERNAL_ERROR};
use super::{BlasFail, BlasResult, at};
use crate::pointers::Mem;
use crate::state::Runtime;

/// The pointwise function of an epilogue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Activation {
    None,
    Relu,
    /// The tanh approximation of GELU: `0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3)))`.
    Gelu,
}

/// What happens to `alpha * op(A) * op(B) + beta * C` before it is stored.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Epilogue {
    /// A vector of `m` elements added to every column (its batch stride in elements).
    pub bias: Option<(u64, Elem, u64)>,
    pub activation: Activation,
    /// Where the input of the activation is stored too (`*_AUX` epilogues).
    pub aux: Option<Matrix>,
}

impl Epilogue {
    pub const NONE: Epilogue = Epilogue {
        bias: None,
        activation: Activation::None,
        aux: None,
    };
}

/// One GEMM call, described in terms of what it accesses.
#[derive(Clone, Copy, Debug)]
pub struct Gemm {
    pub m: u64,
    pub n: u64,
    pub k: u64,
    /// `A` as stored: `m x k`, or `k x m` when transposed.
    pub a: Matrix,
    pub trans_a: bool,
    pub b: Matrix,
    pub trans_b: bool,
    /// Read when `beta` is not 0.
    pub c: Matrix,
    /// Written (the same matrix as `c` outside cuBLASLt).
    pub d: Matrix,
    pub alpha: f64,
    pub beta: f64,
    pub precision: Precision,
    pub epilogue: Epilogue,
}

/// Decodes little-endian elements to f32.
pub fn decode_f32(bytes: &[u8], elem: Elem) -> Vec<f32> {
    match elem {
        Elem::F32 => bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect(),
        Elem::F64 => decode_f64(bytes, elem)
            .into_iter()
            .map(|x| x as f32)
            .collect(),
        Elem::F16 => bytes
            .chunks_exact(2)
            .map(|c| f16::from_le_bytes([c[0], c[1]]).to_f32())
            .collect(),
        Elem::Bf16 => bytes
            .chunks_exact(2)
            .map(|c| bf16::from_le_bytes([c[0], c[1]]).to_f32())
            .collect(),
    }
}

/// Decodes little-endian elements to f64.
pub fn decode_f64(bytes: &[u8], elem: Elem) -> Vec<f64> {
    match elem {
        Elem::F64 => bytes
            .chunks_exact(8)
            .map(|c| f64::from_le_bytes(c.try_into().unwrap_or([0; 8])))
            .collect(),
        _ => decode_f32(bytes, elem).into_iter().map(f64::from).collect(),
    }
}

/// Encodes values as `elem` (rounding to nearest even when it is narrower).
fn encode<T: Real>(values: &[T], elem: Elem, out: &mut Vec<u8>) {
    out.clear();
    for &v in values {
        match elem {
            Elem::F64 => out.extend_from_slice(&v.to_f64().to_le_bytes()),
            Elem::F32 => out.extend_from_slice(&v.to_f32().to_le_bytes()),
            Elem::F16 => out.extend_from_slice(&f16::from_f32(v.to_f32()).to_le_bytes()),
            Elem::Bf16 => out.extend_from_slice(&bf16::from_f32(v.to_f32()).to_le_bytes()),
        }
    }
}

/// Rounds an f32 to TF32 (10 fraction bits), to nearest with ties away from zero, as
/// `cvt.rna.tf32.f32`; infinities and NaNs are kept.
pub fn round_to_tf32(x: f32) -> f32 {
    if !x.is_finite() {
        return x;
    }
    let bits = x.to_bits();
    // Adding half of the last kept place carries into it exactly when the dropped bits
    // are at least half of it (away from zero on a tie, the sign being apart).
    let rounded = bits.wrapping_add(1 << 12) & !0x1fff;
    f32::from_bits(rounded)
}

/// Rounds every input element as the precision asks (see the module docs).
pub fn round_inputs(values: &mut [f32], precision: Precision) {
    match precision {
        Precision::Tf32 => values.iter_mut().for_each(|v| *v = round_to_tf32(*v)),
        Precision::F16Inputs => values
            .iter_mut()
            .for_each(|v| *v = f16::from_f32(*v).to_f32()),
        Precision::Bf16Inputs => values
            .iter_mut()
            .for_each(|v| *v = bf16::from_f32(*v).to_f32()),
        Precision::F32 | Precision::F64 => {}
    }
}

/// The two compute types: f32 and f64.
pub trait Real:
    Copy + Default + std::ops::Add<Output = Self> + std::ops::Mul<Output = Self>
{
    fn decode(bytes: &[u8], elem: Elem) -> Vec<Self>;
    fn from_f64(x: f64) -> Self;
    fn to_f64(self) -> f64;
    fn to_f32(self) -> f32;
    /// `matrixmultiply`'s GEMM: `C = alpha A B + beta C` (`C` is not read when `beta` is 0).
    ///
    /// # Safety
    /// Every element the strides reach lies in the buffers, and `c` aliases neither.
    #[allow(clippy::too_many_arguments)]
    unsafe fn gemm(
        m: usize,
        k: usize,
        n: usize,
        alpha: Self,
        a: *const Self,
        rsa: isize,
        csa: isize,
        b: *const Self,
        rsb: isize,
        csb: isize,
        beta: Self,
        c: *mut Self,
        rsc: isize,
        csc: isize,
    );
}

impl Real for f32 {
    fn decode(bytes: &[u8], elem: Elem) -> Vec<f32> {
        decode_f32(bytes, elem)
    }
    fn from_f64(x: f64) -> f32 {
        x as f32
    }
    fn to_f64(self) -> f64 {
        f64::from(self)
    }
    fn to_f32(self) -> f32 {
        self
    }
    unsafe fn gemm(
        m: usize,
        k: usize,
        n: usize,
        alpha: f32,
        a: *const f32,
        rsa: isize,
        csa: isize,
        b: *const f32,
        rsb: isize,
        csb: isize,
        beta: f32,
        c: *mut f32,
        rsc: isize,
        csc: isize,
    ) {
        // SAFETY: the caller's contract is matrixmultiply's.
        unsafe {
            matrixmultiply::sgemm(m, k, n, alpha, a, rsa, csa, b, rsb, csb, beta, c, rsc, csc)
        }
    }
}

impl Real for f64 {
    fn decode(bytes: &[u8], elem: Elem) -> Vec<f64> {
        decode_f64(bytes, elem)
    }
    fn from_f64(x: f64) -> f64 {
        x
    }
    fn to_f64(self) -> f64 {
        self
    }
    fn to_f32(self) -> f32 {
        self as f32
    }
    unsafe fn gemm(
        m: usize,
        k: usize,
        n: usize,
        alpha: f64,
        a: *const f64,
        rsa: isize,
        csa: isize,
        b: *const f64,
        rsb: isize,
        csb: isize,
        beta: f64,
        c: *mut f64,
        rsc: isize,
        csc: isize,
    ) {
        // SAFETY: the caller's contract is matrixmultiply's.
        unsafe {
            matrixmultiply::dgemm(m, k, n, alpha, a, rsa, csa, b, rsb, csb, beta, c, rsc, csc)
        }
    }
}

/// The pointwise activation in f32 (f64 for double precision).
fn activate(x: f64, activation: Activation) -> f64 {
    match activation {
        Activation::None => x,
        Activation::Relu => x.max(0.0),
        Activation::Gelu => {
            let s = (2.0 / std::f64::consts::PI).sqrt();
            0.5 * x * (1.0 + (s * (x + 0.044715 * x * x * x)).tanh())
        }
    }
}

/// An operand read from device memory, converted.
struct Loaded<T> {
    values: Vec<T>,
    matrix: Matrix,
}

impl Runtime {
    /// Reads a matrix's whole extent from `mem` and converts it.
    fn load<T: Real>(&self, mem: Mem, m: &Matrix) -> Loaded<T> {
        let bytes = m.span_bytes().unwrap_or(0);
        Loaded {
            values: T::decode(&self.read_mem(mem, bytes as usize), m.elem),
            matrix: *m,
        }
    }

    /// Writes an `rows x cols` column-major scratch matrix (`ld = rows`) into matrix `b`
    /// of the batch `m` at `mem`, converted to its type, one column (or row) at a time.
    fn store<T: Real>(&mut self, mem: Mem, m: &Matrix, batch: u64, scratch: &[T]) {
        let size = m.elem.size();
        let (rows, cols) = (m.rows as usize, m.cols as usize);
        let mut bytes = Vec::new();
        let base = batch * m.stride;
        if m.row_major {
            let mut row = vec![T::default(); cols];
            for i in 0..rows {
                for (j, r) in row.iter_mut().enumerate() {
                    *r = scratch[i + j * rows];
                }
                encode(&row, m.elem, &mut bytes);
                let offset = (base + m.offset(i as u64, 0)) * size;
                self.write_mem(at(mem, offset), &bytes);
            }
        } else {
            for j in 0..cols {
                encode(&scratch[j * rows..(j + 1) * rows], m.elem, &mut bytes);
                let offset = (base + m.offset(0, j as u64)) * size;
                self.write_mem(at(mem, offset), &bytes);
            }
        }
    }

    /// Runs a GEMM whose arguments have been validated: checks every range it accesses,
    /// then computes in `T`.
    pub fn run_gemm<T: Real>(&mut self, call: &str, g: &Gemm) -> BlasResult {
        let reads_ab = g.alpha != 0.0 && g.k > 0;
        let reads_c = g.beta != 0.0;
        // Every range is checked before anything is written.
        let a_mem = if reads_ab {
            self.matrix_range(call, "A", &g.a)?
        } else {
            None
        };
        let b_mem = if reads_ab {
            self.matrix_range(call, "B", &g.b)?
        } else {
            None
        };
        let c_mem = if reads_c {
            self.matrix_range(call, "C", &g.c)?
        } else {
            None
        };
        let Some(d_mem) = self.matrix_range(call, if g.d == g.c { "C" } else { "D" }, &g.d)? else {
            return Ok(());
        };
        let bias_mem = match g.epilogue.bias {
            Some((address, elem, stride)) => {
                let bias = Matrix::col_major(address, elem, g.m, 1, g.m).batched(g.d.count, stride);
                self.matrix_range(call, "bias vector", &bias)?
                    .map(|m| (m, bias))
            }
            None => None,
        };
        let aux_mem = match &g.epilogue.aux {
            Some(aux) => self
                .matrix_range(call, "auxiliary output", aux)?
                .map(|m| (m, *aux)),
            None => None,
        };

        let mut a = a_mem.map(|mem| self.load::<T>(mem, &g.a));
        let mut b = b_mem.map(|mem| self.load::<T>(mem, &g.b));
        if g.precision != Precision::F32 && g.precision != Precision::F64 {
            for l in [&mut a, &mut b].into_iter().flatten() {
                // T is f32 whenever the precision rounds (checked by the callers).
                let mut f: Vec<f32> = l.values.iter().map(|v| v.to_f32()).collect();
                round_inputs(&mut f, g.precision);
                l.values = f.into_iter().map(|v| T::from_f64(f64::from(v))).collect();
            }
        }
        let c = c_mem.map(|mem| self.load::<T>(mem, &g.c));
        let bias = bias_mem.map(|(mem, m)| self.load::<T>(mem, &m));
        // The GEMM reads A and B through raw pointers: each buffer must hold its whole
        // extent (it does whenever the range check passed; this keeps a failed read from
        // becoming an out-of-bounds read here).
        for l in [&a, &b, &c, &bias].into_iter().flatten() {
            if l.values.len() as u64 != l.matrix.span_elems().unwrap_or(u64::MAX) {
                return Err(BlasFail::Status(
                    STATUS_INTERNAL_ERROR,
                    "device memory that passed the range check could not be read".into(),
                ));
            }
        }

        let (m, n) = (g.m as usize, g.n as usize);
        let mut scratch = vec![T::default(); m * n];
        let mut aux_scratch = vec![T::default(); if aux_mem.is_some() { m * n } else { 0 }];
        for batch in 0..g.d.count {
            match &c {
                Some(c) => {
                    let beta = T::from_f64(g.beta);
                    let base = (batch * c.matrix.stride) as usize;
                    for j in 0..n {
                        for i in 0..m {
                            let at = base + c.matrix.offset(i as u64, j as u64) as usize;
                            scratch[i + j * m] = beta * c.values[at];
                        }
                    }
                }
                None => scratch.iter_mut().for_each(|v| *v = T::default()),
            }
            if let (Some(a), Some(b)) = (&a, &b) {
                let (ars, acs) = a.matrix.strides();
                let (ars, acs) = if g.trans_a { (acs, ars) } else { (ars, acs) };
                let (brs, bcs) = b.matrix.strides();
                let (brs, bcs) = if g.trans_b { (bcs, brs) } else { (brs, bcs) };
                let a_base = (batch * a.matrix.stride) as usize;
                let b_base = (batch * b.matrix.stride) as usize;
                // SAFETY: the loaded buffers hold the operands' whole extents, which reach
                // every element of op(A) (m x k) and op(B) (k x n) of this batch entry
                // with these strides (see `extent`); the scratch matrix is m x n with
                // strides (1, m), and a separate allocation.
                unsafe {
                    T::gemm(
                        m,
                        g.k as usize,
                        n,
                        T::from_f64(g.alpha),
                        a.values.as_ptr().add(a_base),
                        ars as isize,
                        acs as isize,
                        b.values.as_ptr().add(b_base),
                        brs as isize,
                        bcs as isize,
                        T::from_f64(1.0),
                        scratch.as_mut_ptr(),
                        1,
                        m as isize,
                    );
                }
            }
            let e = &g.epilogue;
            if bias.is_some() || e.activation != Activation::None || e.aux.is_some() {
                for j in 0..n {
                    for i in 0..m {
                        let mut x = scratch[i + j * m];
                        if let Some(bias) = &bias {
                            x = x + bias.values[(batch * bias.matrix.stride) as usize + i];
                        }
                        if !aux_scratch.is_empty() {
                            aux_scratch[i + j * m] = x;
                        }
                        scratch[i + j * m] = T::from_f64(activate(x.to_f64(), e.activation));
                    }
                }
            }
            if let Some((mem, aux)) = &aux_mem {
                self.store(*mem, aux, batch, &aux_scratch);
            }
            self.store(d_mem, &g.d, batch, &scratch);
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tf32_keeps_ten_fraction_bits_rounding_ties_away() {
        assert_eq!(round_to_tf32(1.0), 1.0);
        let ulp = 2f32.powi(-10);
        // Below half an ulp: down; half: away from zero; above: up.
        assert_eq!(round_to_tf32(1.0 + ulp * 0.49), 1.0);
        assert_eq!(round_to_tf32(1.0 + ulp * 0.5), 1.0 + ulp);
        assert_eq!(round_to_tf32(-(1.0 + ulp * 0.5)), -(1.0 + ulp));
        assert_eq!(round_to_tf32(1.0 + ulp * 1.2), 1.0 + ulp);
        assert_eq!(round_to_tf32(f32::INFINITY), f32::INFINITY);
        assert!(round_to_tf32(f32::NAN).is_nan());
        assert_eq!(round_to_tf32(1.0 / 3.0).to_bits() & 0x1fff, 0);
    }

    #[test]
    fn half_types_decode_exactly() {
        let h = f16::from_f32(1.5).to_le_bytes();
        let b = bf16::from_f32(-2.25).to_le_bytes();
        assert_eq!(decode_f32(&h, Elem::F16), vec![1.5]);
        assert_eq!(decode_f32(&b, Elem::Bf16), vec![-2.25]);
        let mut out = Vec::new();
        encode(&[3.0f32], Elem::Bf16, &mut out);
        assert_eq!(out, bf16::from_f32(3.0).to_le_bytes());
    }

    #[test]
    fn gelu_is_the_tanh_approximation() {
        assert_eq!(activate(0.0, Activation::Gelu), 0.0);
        assert!((activate(1.0, Activation::Gelu) - 0.841192).abs() < 1e-5);
        assert_eq!(activate(-3.0, Activation::Relu), 0.0);
    }
}
