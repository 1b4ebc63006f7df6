//! The memory a BLAS call reads or writes: each matrix argument as a strided batch of
//! column-major (or, in cuBLASLt, row-major) matrices (a GEMV's vectors are `len x 1`
//! matrices whose rows are `inc` apart), with the exact byte extent that the host-side bounds check compares with the allocation.
//!
//! A column-major `rows x cols` matrix with leading dimension `ld` keeps element `(i, j)`
//! at element offset `i + j * ld`; a row-major one at `i * ld + j`. Matrix `b` of a strided
//! batch starts `b * stride` elements after the first. The extent therefore runs from the
//! first element of the first matrix to the last element (`(rows - 1, cols - 1)`) of the
//! last matrix: `stride * (count - 1) + offset(rows - 1, cols - 1) + 1` elements, and
//! nothing at all when a dimension or the count is zero (the call touches no memory
//! there). The padding between columns (`ld > rows`) lies inside the extent and is never
//! read or written.

use super::types::Elem;

/// A matrix argument, or a strided batch of them.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Matrix {
    pub address: u64,
    pub elem: Elem,
    pub rows: u64,
    pub cols: u64,
    pub ld: u64,
    pub row_major: bool,
    /// How many matrices (1 for a call without a batch).
    pub count: u64,
    /// Elements from one matrix of the batch to the next.
    pub stride: u64,
}

impl Matrix {
    /// A single column-major matrix.
    pub fn col_major(address: u64, elem: Elem, rows: u64, cols: u64, ld: u64) -> Matrix {
        Matrix {
            address,
            elem,
            rows,
            cols,
            ld,
            row_major: false,
            count: 1,
            stride: 0,
        }
    }

    /// The same matrix as a strided batch.
    pub fn batched(self, count: u64, stride: u64) -> Matrix {
        Matrix {
            count,
            stride,
            ..self
        }
    }

    /// Whether the call touches none of its elements.
    pub fn is_empty(&self) -> bool {
        self.rows == 0 || self.cols == 0 || self.count == 0
    }

    /// The element offset of `(i, j)` within one matrix of the batch.
    pub fn offset(&self, i: u64, j: u64) -> u64 {
        if self.row_major {
            i * self.ld + j
        } else {
            i + j * self.ld
        }
    }

    /// (row stride, column stride) in elements.
    pub fn strides(&self) -> (u64, u64) {
        if self.row_major {
            (self.ld, 1)
        } else {
            (1, self.ld)
        }
    }

    /// The smallest valid leading dimension: the column length (column-major) or the row
    /// length (row-major), and at least 1, as BLAS requires even of empty matrices.
    pub fn min_ld(&self) -> u64 {
        (if self.row_major { self.cols } else { self.rows }).max(1)
    }

    /// The elements spanned, from the first of the first matrix to the last of the last;
    /// `None` when that does not fit in 64 bits.
    pub fn span_elems(&self) -> Option<u64> {
        if self.is_empty() {
            return Some(0);
        }
        let (rs, cs) = self.strides();
        let last = (self.rows - 1)
            .checked_mul(rs)?
            .checked_add((self.cols - 1).checked_mul(cs)?)?;
        self.stride
            .checked_mul(self.count - 1)?
            .checked_add(last)?
            .checked_add(1)
    }

    /// [`Matrix::span_elems`] in bytes.
    pub fn span_bytes(&self) -> Option<u64> {
        self.span_elems()?.checked_mul(self.elem.size())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(rows: u64, cols: u64, ld: u64) -> Matrix {
        Matrix::col_major(0x1000, Elem::F32, rows, cols, ld)
    }

    #[test]
    fn a_packed_matrix_spans_its_elements() {
        assert_eq!(m(3, 2, 3).span_elems(), Some(6));
        assert_eq!(m(3, 2, 3).span_bytes(), Some(24));
    }

    #[test]
    fn padding_after_the_last_column_is_not_in_the_extent() {
        // Columns at 0..3 and 5..8: the last element is at offset 1 * 5 + 2 = 7.
        assert_eq!(m(3, 2, 5).span_elems(), Some(8));
        assert_eq!(m(1, 1, 100).span_elems(), Some(1));
    }

    #[test]
    fn row_major_swaps_the_strides() {
        let r = Matrix {
            row_major: true,
            ..m(2, 3, 4)
        };
        // Rows at 0..3 and 4..7.
        assert_eq!(r.span_elems(), Some(7));
        assert_eq!(r.offset(1, 2), 6);
        assert_eq!(r.min_ld(), 3);
        assert_eq!(m(2, 3, 4).min_ld(), 2);
    }

    #[test]
    fn a_batch_spans_to_the_end_of_its_last_matrix() {
        // Three 4x3 matrices (ld 4) 20 elements apart: 2 * 20 + 12.
        assert_eq!(m(4, 3, 4).batched(3, 20).span_elems(), Some(52));
        // Stride 0 broadcasts one matrix to every batch entry.
        assert_eq!(m(4, 3, 4).batched(8, 0).span_elems(), Some(12));
        // Overlapping matrices (stride smaller than a matrix) still end at the last one.
        assert_eq!(m(4, 3, 4).batched(2, 1).span_elems(), Some(13));
        assert_eq!(
            Matrix {
                elem: Elem::Bf16,
                ..m(4, 3, 4).batched(3, 20)
            }
            .span_bytes(),
            Some(104)
        );
    }

    #[test]
    fn empty_calls_touch_nothing() {
        assert_eq!(m(0, 5, 1).span_elems(), Some(0));
        assert_eq!(m(5, 0, 5).span_elems(), Some(0));
        assert_eq!(m(5, 5, 5).batched(0, 25).span_elems(), Some(0));
        assert_eq!(m(0, 5, 1).min_ld(), 1);
    }

    #[test]
    fn overflow_is_no_extent() {
        assert_eq!(m(u64::MAX, 2, u64::MAX).span_elems(), None);
        assert_eq!(m(2, 2, 2).batched(3, u64::MAX).span_elems(), None);
        assert_eq!(
            Matrix {
                elem: Elem::F64,
                ..m(1, 1, 1).batched(2, u64::MAX / 4)
            }
            .span_bytes(),
            None
        );
    }

    #[test]
    fn a_gemv_vector_is_a_column_with_rows_inc_apart() {
        let x = Matrix {
            row_major: true,
            ..m(5, 1, 3)
        };
        assert_eq!(x.offset(4, 0), 12);
        assert_eq!(x.span_elems(), Some(13));
        assert_eq!(x.min_ld(), 1);
    }
}
