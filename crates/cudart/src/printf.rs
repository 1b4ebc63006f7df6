//! Device `printf` output: written through the C library's `stdout` stream, so that it
//! interleaves with the program's own `printf` output as on a GPU (where the runtime
//! prints the device's buffer at synchronisation points, in order with host output).

unsafe extern "C" {
    /// glibc's `stdout` stream.
    static mut stdout: *mut libc::FILE;
}

/// Writes device output to the program's `stdout` stream.
pub fn write_stdout(text: &str) {
    if text.is_empty() {
        return;
    }
    // SAFETY: `stdout` is the C library's initialised stream; fwrite copies `len` bytes
    // from a live buffer.
    unsafe {
        libc::fwrite(text.as_ptr().cast(), 1, text.len(), stdout);
    }
}
