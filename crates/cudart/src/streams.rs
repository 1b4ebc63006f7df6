//! Streams and events. Every operation runs to completion when issued, so streams are in
//! order and always idle, and host callbacks run at once.
//!
//! Event times: `cudaEventRecord` stamps the emulated device clock, which advances by the
//! emulator's wall-clock time spent running kernels (host work between launches does not
//! advance it). `cudaEventElapsedTime` is the difference in milliseconds: the time the
//! emulator took, not the time a GPU would take.

use std::ffi::{c_int, c_uint, c_void};

use crate::api::{self, Fail, put, require};
use crate::state::Runtime;
use crate::types::*;

impl Runtime {
    pub(crate) fn check_stream(&self, stream: *mut c_void) -> api::Result {
        let s = stream as usize;
        // 0, cudaStreamLegacy (1) and cudaStreamPerThread (2) always exist.
        if s <= 2 || self.streams.contains_key(&s) {
            Ok(())
        } else {
            Err(Fail::Api(
                INVALID_RESOURCE_HANDLE,
                format!("{s:#x} is not a stream"),
            ))
        }
    }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamCreate(stream: *mut *mut c_void) -> CudaError {
    api::call("cudaStreamCreate", |rt| {
        let h = rt.handle();
        rt.streams.insert(h, ());
        unsafe { put(stream, h as *mut c_void, "pStream") }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamCreateWithFlags(
    stream: *mut *mut c_void,
    _flags: c_uint,
) -> CudaError {
    unsafe { cudaStreamCreate(stream) }
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamCreateWithPriority(
    stream: *mut *mut c_void,
    _flags: c_uint,
    _priority: c_int,
) -> CudaError {
    unsafe { cudaStreamCreate(stream) }
}

#[unsafe(no_mangle)]
pub extern "C" fn cudaStreamDestroy(stream: *mut c_void) -> CudaError {
    api::call("cudaStreamDestroy", |rt| {
        require(rt.streams.remove(&(stream as usize)).is_some(), || {
            format!("{:#x} is not a stream", stream as usize)
        })?;
        rt.stream_attributes
            .retain(|&(s, _), _| s != stream as usize);
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn cudaStreamSynchronize(stream: *mut c_void) -> CudaError {
    api::call("cudaStreamSynchronize", |rt| rt.check_stream(stream))
}

#[unsafe(no_mangle)]
pub extern "C" fn cudaStreamQuery(stream: *mut c_void) -> CudaError {
    api::call("cudaStreamQuery", |rt| rt.check_stream(stream))
}

#[unsafe(no_mangle)]
pub extern "C" fn cudaStreamWaitEvent(
    stream: *mut c_void,
    _event: *mut c_void,
    _flags: c_uint,
) -> CudaError {
    api::call("cudaStreamWaitEvent", |rt| rt.check_stream(stream))
}

/// `cudaLaunchHostFunc(stream, fn, data)`: runs `fn(data)` now (the stream is idle),
/// outside the runtime's lock so that it may call the API.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaLaunchHostFunc(
    stream: *mut c_void,
    f: Option<unsafe extern "C" fn(*mut c_void)>,
    data: *mut c_void,
) -> CudaError {
    let r = api::call("cudaLaunchHostFunc", |rt| {
        rt.check_stream(stream)?;
        require(f.is_some(), || "fn is a null pointer".into())
    });
    if r == SUCCESS
        && let Some(f) = f
    {
        // SAFETY: the program's callback, called as the API promises.
        unsafe { f(data) };
    }
    r
}

/// `cudaStreamAddCallback(stream, callback, data, flags)`: runs the callback now with the
/// stream's status.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamAddCallback(
    stream: *mut c_void,
    f: Option<unsafe extern "C" fn(*mut c_void, CudaError, *mut c_void)>,
    data: *mut c_void,
    _flags: c_uint,
) -> CudaError {
    let r = api::call("cudaStreamAddCallback", |rt| {
        rt.check_stream(stream)?;
        require(f.is_some(), || "callback is a null pointer".into())
    });
    if r == SUCCESS
        && let Some(f) = f
    {
        // SAFETY: the program's callback, called as the API promises.
        unsafe { f(stream, SUCCESS, data) };
    }
    r
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaEventCreate(event: *mut *mut c_void) -> CudaError {
    api::call("cudaEventCreate", |rt| {
        let h = rt.handle();
        rt.events.insert(h, None);
        unsafe { put(event, h as *mut c_void, "event") }
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaEventCreateWithFlags(
    event: *mut *mut c_void,
    _flags: c_uint,
) -> CudaError {
    unsafe { cudaEventCreate(event) }
}

fn with_event(
    name: &str,
    event: *mut c_void,
    f: impl FnOnce(&mut Runtime, usize) -> api::Result,
) -> CudaError {
    api::call(name, |rt| {
        let e = event as usize;
        if !rt.events.contains_key(&e) {
            return Err(Fail::Api(
                INVALID_RESOURCE_HANDLE,
                format!("{e:#x} is not an event"),
            ));
        }
        f(rt, e)
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn cudaEventRecord(event: *mut c_void, stream: *mut c_void) -> CudaError {
    with_event("cudaEventRecord", event, |rt, e| {
        rt.check_stream(stream)?;
        let now = rt.clock_ms;
        rt.events.insert(e, Some(now));
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub extern "C" fn cudaEventSynchronize(event: *mut c_void) -> CudaError {
    with_event("cudaEventSynchronize", event, |_, _| Ok(()))
}

#[unsafe(no_mangle)]
pub extern "C" fn cudaEventQuery(event: *mut c_void) -> CudaError {
    with_event("cudaEventQuery", event, |_, _| Ok(()))
}

#[unsafe(no_mangle)]
pub extern "C" fn cudaEventDestroy(event: *mut c_void) -> CudaError {
    with_event("cudaEventDestroy", event, |rt, e| {
        rt.events.remove(&e);
        Ok(())
    })
}

#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaEventElapsedTime(
    ms: *mut f32,
    start: *mut c_void,
    end: *mut c_void,
) -> CudaError {
    api::call("cudaEventElapsedTime", |rt| {
        let get = |rt: &Runtime, e: *mut c_void| rt.events.get(&(e as usize)).copied();
        match (get(rt, start), get(rt, end)) {
            (Some(Some(a)), Some(Some(b))) => unsafe { put(ms, (b - a) as f32, "ms") },
            (Some(_), Some(_)) => Err(Fail::Api(
                INVALID_RESOURCE_HANDLE,
                "an event was never recorded".into(),
            )),
            _ => Err(Fail::Api(INVALID_RESOURCE_HANDLE, "not an event".into())),
        }
    })
}

/// The stream attributes (`cudaLaunchAttributeID`s valid for streams): access policy
/// window, synchronisation policy, priority, memory sync domain map and domain.
const STREAM_ATTRIBUTES: &[u32] = &[1, 3, 8, 9, 10];

/// The value of an attribute never set: zeros, but `cudaSyncPolicyAuto` (1).
fn default_attribute(attr: u32) -> [u8; 64] {
    let mut v = [0u8; 64];
    if attr == 3 {
        v[..4].copy_from_slice(&1u32.to_le_bytes());
    }
    v
}

/// `cudaStreamSetAttribute(stream, attr, value)`: records the value, which
/// `cudaStreamGetAttribute` returns. Every attribute is a hint to the hardware (L2
/// persistence, how the host waits, priority, memory domains) that changes nothing when
/// every operation runs to completion as it is issued.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamSetAttribute(
    stream: *mut c_void,
    attr: c_uint,
    value: *const [u8; 64],
) -> CudaError {
    api::call("cudaStreamSetAttribute", |rt| {
        rt.check_stream(stream)?;
        require(STREAM_ATTRIBUTES.contains(&attr), || {
            format!("{attr} is not a stream attribute")
        })?;
        require(!value.is_null(), || "value is a null pointer".into())?;
        // SAFETY: a `cudaStreamAttrValue`, a 64-byte union, valid for reads.
        let bytes = unsafe { *value };
        rt.stream_attributes.insert((stream as usize, attr), bytes);
        Ok(())
    })
}

/// `cudaStreamGetAttribute(stream, attr, value_out)`: the value last set, else the
/// default of a new stream.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cudaStreamGetAttribute(
    stream: *mut c_void,
    attr: c_uint,
    value_out: *mut [u8; 64],
) -> CudaError {
    api::call("cudaStreamGetAttribute", |rt| {
        rt.check_stream(stream)?;
        require(STREAM_ATTRIBUTES.contains(&attr), || {
            format!("{attr} is not a stream attribute")
        })?;
        let v = rt
            .stream_attributes
            .get(&(stream as usize, attr))
            .copied()
            .unwrap_or_else(|| default_attribute(attr));
        unsafe { put(value_out, v, "value_out") }
    })
}
