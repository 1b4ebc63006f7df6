//! `tex` against textures bound in the emulator's memory: references named in the
//! instruction and objects passed as handles, point and linear filtering, the addressing
//! modes, normalised coordinates and normalised-float reads, and the fault of an unbound
//! handle.

use crate::common;
use common::*;
use warpcheck_emu::texture::{
    AddressMode, ChannelKind, FilterMode, Format, Texture, filter_weight,
};
use warpcheck_emu::{FaultKind, GlobalMemory, place_globals, run};

const PTX: &str = r#"
.version 7.0
.target sm_80
.address_size 64
.global .texref tref;

// out[i] = x component of tex1Dfetch(tref, i) (the reference named directly, as nvcc
// writes it), out[n + i] = the same through the handle of `mov.u64 %rd, tref` (as clang
// writes it).
.visible .entry fetch_ref(.param .u64 out, .param .u32 n)
{
    .reg .b32 %r<4>;
    .reg .f32 %f<9>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [out];
    ld.param.u32 %r2, [n];
    mov.u32 %r1, %tid.x;
    tex.1d.v4.f32.s32 {%f1, %f2, %f3, %f4}, [tref, {%r1}];
    mov.u64 %rd5, tref;
    tex.1d.v4.f32.s32 {%f5, %f6, %f7, %f8}, [%rd5, {%r1}];
    mul.wide.u32 %rd2, %r1, 4;
    add.s64 %rd3, %rd1, %rd2;
    st.global.f32 [%rd3], %f1;
    mul.wide.u32 %rd4, %r2, 4;
    add.s64 %rd6, %rd3, %rd4;
    st.global.f32 [%rd6], %f5;
    ret;
}

// out[4 i .. 4 i + 4] = tex2D(h, xy[2 i], xy[2 i + 1]), all four components.
.visible .entry sample2d(.param .u64 out, .param .u64 xy, .param .u64 h)
{
    .reg .b32 %r<4>;
    .reg .f32 %f<8>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [xy];
    ld.param.u64 %rd3, [h];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd4, %r1, 8;
    add.s64 %rd5, %rd2, %rd4;
    ld.global.v2.f32 {%f1, %f2}, [%rd5];
    tex.2d.v4.f32.f32 {%f3, %f4, %f5, %f6}, [%rd3, {%f1, %f2}];
    mul.wide.u32 %rd6, %r1, 16;
    add.s64 %rd7, %rd1, %rd6;
    st.global.v4.f32 [%rd7], {%f3, %f4, %f5, %f6};
    ret;
}

// out[i] = x component of tex1Dfetch(h, i) read as integers.
.visible .entry fetch_int(.param .u64 out, .param .u64 h)
{
    .reg .b32 %r<8>;
    .reg .b64 %rd<6>;
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd3, [h];
    mov.u32 %r1, %tid.x;
    tex.1d.v4.s32.s32 {%r2, %r3, %r4, %r5}, [%rd3, {%r1}];
    mul.wide.u32 %rd4, %r1, 4;
    add.s64 %rd5, %rd1, %rd4;
    st.global.u32 [%rd5], %r2;
    ret;
}

// out[i] = tex3D(h, x, y, z) at xyz[3 i ..].
.visible .entry sample3d(.param .u64 out, .param .u64 xyz, .param .u64 h)
{
    .reg .b32 %r<4>;
    .reg .f32 %f<10>;
    .reg .b64 %rd<8>;
    ld.param.u64 %rd1, [out];
    ld.param.u64 %rd2, [xyz];
    ld.param.u64 %rd3, [h];
    mov.u32 %r1, %tid.x;
    mul.wide.u32 %rd4, %r1, 12;
    add.s64 %rd5, %rd2, %rd4;
    ld.global.f32 %f1, [%rd5];
    ld.global.f32 %f2, [%rd5+4];
    ld.global.f32 %f3, [%rd5+8];
    tex.3d.v4.f32.f32 {%f4, %f5, %f6, %f7}, [%rd3, {%f1, %f2, %f3, %f3}];
    mul.wide.u32 %rd6, %r1, 4;
    add.s64 %rd7, %rd1, %rd6;
    st.global.f32 [%rd7], %f4;
    ret;
}
"#;

const F32: Format = Format {
    bits: [32, 0, 0, 0],
    kind: ChannelKind::Float,
};

/// A 2D float texture over `rows` (row-major, `w` wide) with the given sampler state.
fn image(
    m: &mut GlobalMemory,
    rows: &[f32],
    w: u64,
    address: AddressMode,
    filter: FilterMode,
    normalized: bool,
) -> Texture {
    let base = buf_f32(m, rows);
    let h = rows.len() as u64 / w;
    let mut t = Texture::linear(base, rows.len() as u64 * 4, F32);
    t.size = [w, h, 1];
    t.pitch = w * 4;
    t.slice_pitch = w * h * 4;
    t.linear = false;
    t.address = [address; 3];
    t.filter = filter;
    t.normalized_coords = normalized;
    t.border = [-1.0, -2.0, -3.0, -4.0];
    t
}

/// Samples texture `t` at the coordinates `xy` with `sample2d`: the four components each.
fn sample(m: &mut GlobalMemory, t: Texture, xy: &[[f32; 2]]) -> Vec<[f32; 4]> {
    let p = lower_ptx(PTX);
    let k = kernel(&p, "sample2d");
    let h = m.textures_mut().create_object(t);
    let flat: Vec<f32> = xy.iter().flatten().copied().collect();
    let coords = buf_f32(m, &flat);
    let out = buf_f32(m, &vec![0.0; 4 * xy.len()]);
    let prm = params(&p, k, &[A::Ptr(out), A::Ptr(coords), A::I64(h as i64)]);
    run_clean(&p, k, &prm, m, &config([1, 1, 1], [xy.len() as u32, 1, 1]));
    read_f32(m, out, 4 * xy.len())
        .chunks(4)
        .map(|c| [c[0], c[1], c[2], c[3]])
        .collect()
}

fn xs(v: &[[f32; 4]]) -> Vec<f32> {
    v.iter().map(|c| c[0]).collect()
}

#[test]
fn a_reference_is_fetched_by_name_and_by_handle_and_reads_zero_past_linear_memory() {
    let p = lower_ptx(PTX);
    let k = kernel(&p, "fetch_ref");
    let mut m = GlobalMemory::new();
    let placed = place_globals(&p, &mut m).unwrap();
    assert_eq!(placed.len(), 1);
    let handle = m.symbol("tref").expect("the .texref is placed");
    let data: Vec<f32> = (0..24).map(|i| i as f32 * 1.5).collect();
    let base = buf_f32(&mut m, &data);
    m.textures_mut()
        .bind(handle, Texture::linear(base, 24 * 4, F32));
    let n = 32u32;
    let out = buf_f32(&mut m, &vec![7.0; 2 * n as usize]);
    let prm = params(&p, k, &[A::Ptr(out), A::U32(n)]);
    run_clean(&p, k, &prm, &mut m, &config([1, 1, 1], [n, 1, 1]));
    let got = read_f32(&m, out, 2 * n as usize);
    let want: Vec<f32> = (0..n)
        .map(|i| if i < 24 { i as f32 * 1.5 } else { 0.0 })
        .collect();
    assert_eq!(&got[..n as usize], &want[..]);
    assert_eq!(&got[n as usize..], &want[..]);
}

#[test]
fn an_unbound_handle_faults_naming_it() {
    let p = lower_ptx(PTX);
    let k = kernel(&p, "fetch_ref");
    let mut m = GlobalMemory::new();
    place_globals(&p, &mut m).unwrap();
    let handle = m.symbol("tref").unwrap();
    let out = buf_f32(&mut m, &[0.0; 64]);
    let prm = params(&p, k, &[A::Ptr(out), A::U32(32)]);
    let r = run(&p, k, &prm, &mut m, &config([1, 1, 1], [32, 1, 1])).unwrap();
    let f = r.faults.first().expect("a fault");
    assert_eq!(f.kind, FaultKind::UnboundTexture { handle });
    assert!(f.kind.to_string().contains("names no bound texture"));
}

#[test]
fn point_sampling_clamps_borders_wraps_and_mirrors() {
    // 4x2 image, texel (x, y) = 10 y + x.
    let rows = [0.0, 1.0, 2.0, 3.0, 10.0, 11.0, 12.0, 13.0];
    let mut m = GlobalMemory::new();
    let clamp = image(
        &mut m,
        &rows,
        4,
        AddressMode::Clamp,
        FilterMode::Point,
        false,
    );
    let got = sample(
        &mut m,
        clamp,
        &[
            [0.5, 0.5],
            [3.99, 1.0],
            [-7.0, 0.2],
            [9.0, 5.0],
            [1.0, -1.0],
        ],
    );
    assert_eq!(xs(&got), [0.0, 13.0, 0.0, 13.0, 1.0]);
    // Float texels lack y, z, w: they read as zero.
    assert_eq!(&got[1][1..], [0.0, 0.0, 0.0]);

    let border = image(
        &mut m,
        &rows,
        4,
        AddressMode::Border,
        FilterMode::Point,
        false,
    );
    let got = sample(&mut m, border, &[[0.5, 0.5], [-0.5, 0.5], [2.5, 2.0]]);
    assert_eq!(xs(&got), [0.0, -1.0, -1.0]);
    assert_eq!(got[1], [-1.0, -2.0, -3.0, -4.0], "the whole border colour");

    let wrap = image(&mut m, &rows, 4, AddressMode::Wrap, FilterMode::Point, true);
    let got = sample(
        &mut m,
        wrap,
        &[[0.125, 0.25], [1.375, 0.75], [-0.125, -0.25]],
    );
    assert_eq!(xs(&got), [0.0, 11.0, 13.0]);

    // Mirror: 1.125 reflects to 0.875 (texel 3), -0.375 to 0.375 (texel 1).
    let mirror = image(
        &mut m,
        &rows,
        4,
        AddressMode::Mirror,
        FilterMode::Point,
        true,
    );
    let got = sample(&mut m, mirror, &[[1.125, 0.25], [-0.375, 0.75]]);
    assert_eq!(xs(&got), [3.0, 11.0]);

    // Wrap without normalised coordinates is clamp, as on the GPU.
    let unnormalised = image(
        &mut m,
        &rows,
        4,
        AddressMode::Wrap,
        FilterMode::Point,
        false,
    );
    let got = sample(&mut m, unnormalised, &[[5.5, 0.5]]);
    assert_eq!(xs(&got), [3.0]);
}

#[test]
fn linear_filtering_uses_weights_with_eight_fractional_bits() {
    assert_eq!(filter_weight(0.3), 77.0 / 256.0);
    assert_eq!(filter_weight(0.5), 0.5);
    assert_eq!(filter_weight(0.999), 1.0);
    // A 2x2 image: 0 1 / 0 256, so that the weight along x shows in row 0 and the weight
    // along y in column 1.
    let rows = [0.0, 1.0, 0.0, 256.0];
    let mut m = GlobalMemory::new();
    let t = image(
        &mut m,
        &rows,
        2,
        AddressMode::Clamp,
        FilterMode::Linear,
        false,
    );
    let at = [
        [0.8, 0.5],
        [1.0, 0.5],
        [1.5, 0.8],
        [1.5, 1.0],
        [0.5 + 1.0 / 1024.0, 0.5],
    ];
    let got = xs(&sample(&mut m, t, &at));
    // x = 0.8: xB = 0.3, weight 77/256; y = 0.8 in column 1: 1 + 255·77/256.
    let w = 77.0f32 / 256.0;
    assert_eq!(got[0], w);
    assert_eq!(got[1], 0.5);
    assert_eq!(got[2], (1.0 - w) * 1.0 + w * 256.0);
    assert_eq!(got[3], 0.5 * 1.0 + 0.5 * 256.0);
    // A fraction below 1/512 rounds to weight 0.
    assert_eq!(got[4], 0.0);
}

#[test]
fn integer_texels_read_as_integers_or_normalised_floats() {
    let p = lower_ptx(PTX);
    let k = kernel(&p, "fetch_int");
    let mut m = GlobalMemory::new();
    let bytes: Vec<u8> = vec![0, 1, 127, 128, 200, 255];
    let base = buf_bytes(&mut m, &bytes);
    let signed = Format {
        bits: [8, 0, 0, 0],
        kind: ChannelKind::Signed,
    };
    let h = m
        .textures_mut()
        .create_object(Texture::linear(base, 6, signed));
    let out = buf_u32(&mut m, &[0; 6]);
    let prm = params(&p, k, &[A::Ptr(out), A::I64(h as i64)]);
    run_clean(&p, k, &prm, &mut m, &config([1, 1, 1], [6, 1, 1]));
    let got: Vec<i32> = read_u32(&m, out, 6).iter().map(|&v| v as i32).collect();
    assert_eq!(got, [0, 1, 127, -128, -56, -1]);

    // The same bytes as normalised floats: unsigned v / 255, signed max(v / 127, -1).
    let mut t = Texture::linear(
        base,
        6,
        Format {
            kind: ChannelKind::Unsigned,
            ..signed
        },
    );
    t.read_normalized = true;
    let h = m.textures_mut().create_object(t);
    let prm = params(&p, k, &[A::Ptr(out), A::I64(h as i64)]);
    run_clean(&p, k, &prm, &mut m, &config([1, 1, 1], [6, 1, 1]));
    let got: Vec<f32> = read_u32(&m, out, 6)
        .iter()
        .map(|&v| f32::from_bits(v))
        .collect();
    let want: Vec<f32> = bytes.iter().map(|&b| b as f32 / 255.0).collect();
    assert_eq!(got, want);
    let mut t = Texture::linear(base, 6, signed);
    t.read_normalized = true;
    let h = m.textures_mut().create_object(t);
    let prm = params(&p, k, &[A::Ptr(out), A::I64(h as i64)]);
    run_clean(&p, k, &prm, &mut m, &config([1, 1, 1], [6, 1, 1]));
    let got: Vec<f32> = read_u32(&m, out, 6)
        .iter()
        .map(|&v| f32::from_bits(v))
        .collect();
    assert_eq!(
        got,
        [0.0, 1.0 / 127.0, 1.0, -1.0, -56.0 / 127.0, -1.0 / 127.0]
    );
}

#[test]
fn three_dimensional_textures_filter_trilinearly() {
    let p = lower_ptx(PTX);
    let k = kernel(&p, "sample3d");
    let mut m = GlobalMemory::new();
    // 2x2x2, texel (x, y, z) = x + 10 y + 100 z.
    let data: Vec<f32> = (0..8)
        .map(|i| (i & 1) as f32 + 10.0 * ((i >> 1) & 1) as f32 + 100.0 * (i >> 2) as f32)
        .collect();
    let base = buf_f32(&mut m, &data);
    let mut t = Texture::linear(base, 32, F32);
    t.size = [2, 2, 2];
    t.pitch = 8;
    t.slice_pitch = 16;
    t.linear = false;
    t.filter = FilterMode::Linear;
    let h = m.textures_mut().create_object(t);
    let at = [0.5f32, 0.5, 0.5, 1.0, 1.0, 1.0, 1.5, 0.5, 1.5];
    let coords = buf_f32(&mut m, &at);
    let out = buf_f32(&mut m, &[0.0; 3]);
    let prm = params(&p, k, &[A::Ptr(out), A::Ptr(coords), A::I64(h as i64)]);
    run_clean(&p, k, &prm, &mut m, &config([1, 1, 1], [3, 1, 1]));
    assert_eq!(read_f32(&m, out, 3), [0.0, 55.5, 101.0]);
}
