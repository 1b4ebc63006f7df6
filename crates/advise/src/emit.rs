//! `--emit-cuda`: a CUDA kernel and launch code for a GPU-friendly loop nest with the
//! recommended mapping (Juravle §3's "recipes", made concrete), and a verification
//! harness that runs the original function and the kernel on the same inputs.
//!
//! The kernel is built from the source text, not from the IR: the loop headers give the
//! normalised index (`i = A + S·k` for `for (T i = A; i < B; i += S)`, `k` from the grid)
//! and the iteration count (`(B − A + S − 1) / S`), and the innermost mapped loop's body is
//! copied verbatim into a `__device__` function called once per thread. Nests with
//! statements between the two mapped loops, loops whose headers are not of that form, or
//! bodies without braces are refused with the reason.
//!
//! The harness (`.cu`, compiled by warpcheck's own front end) holds the kernel, the
//! original C function made callable on the device (`#pragma clang
//! force_cuda_host_device`), and two wrappers with flat parameters — struct parameters
//! are passed field by field and rebuilt in the wrapper, because the emulator's buffers
//! cannot hold pointers to other buffers — `warpcheck_reference` (one thread runs the
//! original function) and `warpcheck_kernel` (the grid runs the kernel body).

use crate::model::{FunctionAdvice, NestAdvice};
use crate::source::{self, ForHeader, StructLayout};

/// The generated code and how to run the harness.
#[derive(Clone, Debug)]
pub struct Emitted {
    /// The user-facing CUDA: kernel, `__device__` body, launch function.
    pub cuda: String,
    /// The verification harness (the CUDA above plus the reference).
    pub harness: String,
    /// Harness arguments, shared by both wrappers (the kernel also takes the counts).
    pub args: Vec<HarnessArg>,
    /// Iteration counts of the mapped loops, outer first.
    pub counts: Vec<i128>,
    /// Block shape the harness launches the kernel with: x, y.
    pub block: [u32; 2],
    /// Buffers the loop writes (by flat name), compared after the two runs.
    pub outputs: Vec<String>,
}

/// One flat argument of the harness wrappers.
#[derive(Clone, Debug, PartialEq)]
pub enum HarnessArg {
    /// A buffer: flat name, element type (`i32`, `f32`, `u8`, `f64`), elements.
    Buffer {
        name: String,
        elem: &'static str,
        count: i128,
    },
    /// An integer scalar.
    Int { name: String, value: i128 },
    /// A floating-point scalar (no value given: a fixed 0.25).
    Float { name: String, value: f64 },
}

impl HarnessArg {
    /// The `NAME=SPEC` form of the emulator's argument syntax.
    pub fn spec(&self) -> String {
        match self {
            HarnessArg::Buffer { name, elem, count } => format!("{name}={elem}[{count}]:rand"),
            HarnessArg::Int { name, value } => format!("{name}={value}"),
            HarnessArg::Float { name, value } => format!("{name}={value}"),
        }
    }
}

/// The parts of a normalisable `for` header.
struct Header {
    var: String,
    ty: String,
    start: String,
    bound: String,
    inclusive: bool,
    step: String,
}

fn parse_header(h: &ForHeader) -> Result<Header, String> {
    let bad = || {
        format!(
            "the loop header `for ({}; {}; {})` on line {} is not `for (T v = A; v < B; v += S)`",
            h.init, h.cond, h.step, h.line
        )
    };
    let var = h.var.clone().ok_or_else(bad)?;
    let (lhs, start) = h.init.split_once('=').ok_or_else(bad)?;
    let ty = lhs
        .trim()
        .strip_suffix(var.as_str())
        .unwrap_or("")
        .trim()
        .to_string();
    let ty = if ty.is_empty() { "int".to_string() } else { ty };
    let cond = h.cond.replace(' ', "");
    let (bound, inclusive) = if let Some(b) = cond.strip_prefix(&format!("{var}<=")) {
        (b.to_string(), true)
    } else if let Some(b) = cond.strip_prefix(&format!("{var}<")) {
        (b.to_string(), false)
    } else {
        return Err(bad());
    };
    let step = h.step.replace(' ', "");
    let step = if step == format!("{var}++") || step == format!("++{var}") {
        "1".to_string()
    } else if let Some(s) = step.strip_prefix(&format!("{var}+=")) {
        s.to_string()
    } else {
        return Err(bad());
    };
    Ok(Header {
        var,
        ty,
        start: start.trim().to_string(),
        bound,
        inclusive,
        step,
    })
}

/// The text between the `{` that follows the header on `line` and its matching `}`:
/// (body, byte offset of `{`, byte offset of `}`).
fn braced_after(source: &str, line: u32) -> Option<(String, usize, usize)> {
    let start: usize = source
        .lines()
        .take(line.saturating_sub(1) as usize)
        .map(|l| l.len() + 1)
        .sum();
    let rest = &source[start..];
    let for_at = rest.find("for")?;
    // Skip the header's parentheses.
    let open_paren = for_at + rest[for_at..].find('(')?;
    let mut depth = 0;
    let mut close_paren = None;
    for (i, c) in rest[open_paren..].char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    close_paren = Some(open_paren + i);
                    break;
                }
            }
            _ => {}
        }
    }
    let after = close_paren? + 1;
    let brace = after + rest[after..].find(|c: char| !c.is_whitespace())?;
    if !rest[brace..].starts_with('{') {
        return None;
    }
    let mut depth = 0;
    for (i, c) in rest[brace..].char_indices() {
        match c {
            '{' => depth += 1,
            '}' => {
                depth -= 1;
                if depth == 0 {
                    let body = rest[brace + 1..brace + i].to_string();
                    return Some((body, start + brace, start + brace + i));
                }
            }
            _ => {}
        }
    }
    None
}

/// The function's definition text (from its return type to its closing brace) and the
/// text before it (type definitions), `#include` lines removed.
fn function_text(source: &str, name: &str) -> Option<(String, String)> {
    let mut offset = 0;
    for line in source.lines() {
        let code = line.split("//").next().unwrap_or("");
        let is_def = code.contains(&format!("{name}("))
            && !code.trim_start().starts_with('#')
            && !code.trim_end().ends_with(';');
        if is_def {
            let rest = &source[offset..];
            let open = rest.find('{')?;
            let mut depth = 0;
            for (i, c) in rest[open..].char_indices() {
                match c {
                    '{' => depth += 1,
                    '}' => {
                        depth -= 1;
                        if depth == 0 {
                            let def = rest[..open + i + 1].to_string();
                            // Without the file's header comment and includes.
                            let prelude: String = source[..offset]
                                .lines()
                                .skip_while(|l| {
                                    l.trim_start().starts_with("//") || l.trim().is_empty()
                                })
                                .filter(|l| !l.trim_start().starts_with("#include"))
                                .map(|l| format!("{l}\n"))
                                .collect();
                            return Some((def, prelude));
                        }
                    }
                    _ => {}
                }
            }
            return None;
        }
        offset += line.len() + 1;
    }
    None
}

fn elem_of(c_type: &str) -> Option<(&'static str, i128)> {
    if c_type.matches('*').count() != 1 {
        return None; // pointers to pointers: the emulator's buffers cannot hold them
    }
    let t: Vec<&str> = c_type
        .split_whitespace()
        .filter(|w| !matches!(*w, "const" | "volatile" | "restrict"))
        .collect();
    Some(match t.join(" ").trim_end_matches('*').trim() {
        "int" | "int32_t" | "signed int" => ("i32", 4),
        "unsigned" | "unsigned int" | "uint32_t" => ("u32", 4),
        "float" => ("f32", 4),
        "double" => ("f64", 8),
        "char" | "signed char" | "int8_t" => ("i8", 1),
        "unsigned char" | "uint8_t" => ("u8", 1),
        "short" | "int16_t" => ("i16", 2),
        "unsigned short" | "uint16_t" => ("u16", 2),
        "long" | "long long" | "int64_t" => ("i64", 8),
        _ => return None,
    })
}

/// Generates the kernel for the first parallel nest of `advice`.
pub fn emit_cuda(
    advice: &FunctionAdvice,
    source: &str,
    param_names: &[String],
    param_types: &[String],
    file: &str,
) -> Result<Emitted, String> {
    let nest = chosen_nest(advice)?;
    let mapping = nest
        .mapping
        .as_ref()
        .ok_or("the nest has no recommended mapping")?;
    let headers: Vec<Header> = nest
        .loops
        .iter()
        .map(|l| {
            l.header
                .as_ref()
                .ok_or_else(|| {
                    format!(
                        "no `for` header found for loop {} on line {}",
                        l.var, l.line
                    )
                })
                .and_then(parse_header)
        })
        .collect::<Result<_, _>>()?;
    let body = nest_body(source, nest)?;
    let (definition, prelude) = function_text(source, &advice.function).ok_or_else(|| {
        format!(
            "cannot find the definition of `{}` in the source",
            advice.function
        )
    })?;
    let f = &advice.function;
    let locals = iteration_locals(source, f, nest);
    let parts = KernelParts::new(&headers, mapping, param_names, param_types);
    let mut cuda = format!(
        "// Generated by `warpcheck advise --emit-cuda` from {file}, function {f}, loop nest at lines {}-{}.\n\
         // Mapping: {} ({}).\n// Each thread runs one iteration; the loop body is copied from the source.\n\n",
        nest.lines[0], nest.lines[1], mapping.recommended, mapping.reason
    );
    cuda.push_str(&prelude);
    cuda.push_str(&parts.kernel_and_launch(f, &locals, &body));
    let inputs = harness_inputs(advice, nest, source, param_names, param_types)?;
    let counts: Vec<i128> = nest
        .loops
        .iter()
        .map(|l| {
            l.trip_value
                .ok_or_else(|| format!("the iteration count of loop {} needs --values", l.var))
        })
        .collect::<Result<_, _>>()?;
    let mut harness = cuda.clone();
    harness.push_str(&format!(
        "\n// Verification harness (warpcheck advise --emit-cuda): the original function on one thread.\n\
         #pragma clang force_cuda_host_device begin\n{definition}\n#pragma clang force_cuda_host_device end\n\n\
         extern \"C\" __global__ void warpcheck_reference({fp})\n{{\n{rebuild}    {f}({a});\n}}\n\n\
         extern \"C\" __global__ void warpcheck_kernel({fpc})\n{{\n{rebuild}{index_code}    {f}_iteration({ia});\n}}\n",
        fp = inputs.flat_params.join(", "),
        rebuild = inputs.rebuild,
        a = parts.args.join(", "),
        fpc = join_both(&inputs.flat_params, &parts.count_params),
        index_code = parts.index_code,
        ia = parts.iter_args.join(", ")
    ));
    Ok(Emitted {
        cuda,
        harness,
        args: inputs.args,
        counts,
        block: parts.block,
        outputs: inputs.outputs,
    })
}

/// `a` then `b`, joined with commas.
fn join_both(a: &[String], b: &[String]) -> String {
    a.iter().chain(b).cloned().collect::<Vec<_>>().join(", ")
}

/// The nest to emit: the first the static test found GPU friendly, else the first it
/// could not decide (the harness then tests it dynamically).
fn chosen_nest(advice: &FunctionAdvice) -> Result<&NestAdvice, String> {
    let with = |verdict: &str| advice.nests.iter().find(|n| n.verdict.parallel == verdict);
    with("yes").or_else(|| with("unknown")).ok_or_else(|| {
        format!(
            "`{}` has no loop nest that is GPU friendly",
            advice.function
        )
    })
}

/// The innermost loop's body, after checking that a two-loop nest has nothing between
/// its loops.
fn nest_body(source: &str, nest: &NestAdvice) -> Result<String, String> {
    let innermost = nest.loops.last().ok_or("empty nest")?;
    let (body, _, close) = braced_after(source, innermost.line).ok_or_else(|| {
        format!(
            "the body of loop {} (line {}) is not in braces",
            innermost.var, innermost.line
        )
    })?;
    if nest.loops.len() == 2 {
        let (outer_body, _, outer_close) = braced_after(source, nest.loops[0].line)
            .ok_or_else(|| format!("the body of loop {} is not in braces", nest.loops[0].var))?;
        let inner_start = outer_body.find("for").unwrap_or(0);
        let before = code_only(&outer_body[..inner_start]);
        let after = code_only(&source[close + 1..outer_close]);
        if !before.trim().is_empty() || !after.trim().is_empty() {
            return Err("statements between the two loops (outer-loop computations, Juravle Fig. 4.1) are not moved into the inner loop yet".into());
        }
    }
    Ok(body)
}

/// Declarations between the function's `{` and the nest: the iteration's private
/// variables (`int k; float D;` declared at function scope, as OpenMP code does), without
/// the loop variables, one per line.
fn iteration_locals(source: &str, f: &str, nest: &NestAdvice) -> String {
    let outer_line = nest.loops[0].line as usize;
    let def_line = source
        .lines()
        .position(|l| l.contains(&format!("{f}(")))
        .unwrap_or(0);
    let loop_vars: Vec<String> = nest.loops.iter().map(|x| x.var.clone()).collect();
    source
        .lines()
        .enumerate()
        .filter(|(i, _)| *i > def_line && *i + 1 < outer_line)
        .map(|(_, l)| l.split("//").next().unwrap_or("").trim())
        .filter(|l| l.ends_with(';') && !l.contains('(') && !l.starts_with("return"))
        .filter_map(|l| without_loop_vars(l, &loop_vars))
        .map(|l| format!("    {l}\n"))
        .collect()
}

/// The generated kernel's pieces of text.
struct KernelParts {
    /// The function's parameters (`T name`) and their names.
    params: Vec<String>,
    args: Vec<String>,
    /// One `long long count_v` per loop, and their names.
    count_params: Vec<String>,
    count_args: Vec<String>,
    /// How each count is computed from the loop header, for the launch's comment.
    count_text: Vec<String>,
    /// The iteration function's parameters (the function's, then the loop variables) and
    /// its arguments.
    iter_params: Vec<String>,
    iter_args: Vec<String>,
    /// The thread's counters from the grid, the bounds guard, and the loop variables.
    index_code: String,
    /// The block shape (x, y) and the launch's `dim3 block`/`dim3 grid` lines.
    block: [u32; 2],
    grid_text: String,
}

impl KernelParts {
    fn new(
        headers: &[Header],
        mapping: &crate::model::Mapping,
        param_names: &[String],
        param_types: &[String],
    ) -> KernelParts {
        let params: Vec<String> = param_names
            .iter()
            .zip(param_types)
            .map(|(n, t)| format!("{t} {n}"))
            .collect();
        let args: Vec<String> = param_names.to_vec();
        // Which loop goes to x: the recommended mapping's first variable.
        let x_var = mapping
            .recommended
            .split(" -> ")
            .next()
            .unwrap_or("")
            .trim();
        let x_index = headers.iter().position(|h| h.var == x_var).unwrap_or(0);
        let y_index = (headers.len() == 2).then(|| 1 - x_index);
        let block: [u32; 2] = if y_index.is_some() { [32, 8] } else { [256, 1] };
        let count_text = headers
            .iter()
            .map(|h| {
                let extra = if h.inclusive { "" } else { " - 1" };
                format!(
                    "count_{v} = ((long long)({b}) - ({a}) + ({s}){extra}) / ({s})",
                    v = h.var,
                    b = h.bound,
                    a = h.start,
                    s = h.step
                )
            })
            .collect();
        KernelParts {
            iter_params: params
                .iter()
                .cloned()
                .chain(headers.iter().map(|h| format!("{} {}", h.ty, h.var)))
                .collect(),
            iter_args: args
                .iter()
                .cloned()
                .chain(headers.iter().map(|h| h.var.clone()))
                .collect(),
            params,
            args,
            count_params: headers
                .iter()
                .map(|h| format!("long long count_{}", h.var))
                .collect(),
            count_args: headers.iter().map(|h| format!("count_{}", h.var)).collect(),
            count_text,
            index_code: index_code(headers, y_index),
            block,
            grid_text: grid_text(headers, x_index, y_index, block),
        }
    }

    /// The `__device__` iteration function (`locals` then `body`), the kernel and the
    /// launch function of function `f`.
    fn kernel_and_launch(&self, f: &str, locals: &str, body: &str) -> String {
        let mut cuda = format!(
            "\n__device__ static void {f}_iteration({})\n{{\n{locals}{body}}}\n\n",
            self.iter_params.join(", ")
        );
        cuda.push_str(&format!(
            "extern \"C\" __global__ void {f}_kernel({})\n{{\n{}    {f}_iteration({});\n}}\n\n",
            join_both(&self.params, &self.count_params),
            self.index_code,
            self.iter_args.join(", ")
        ));
        cuda.push_str(&format!(
            "// Launch: the counts are the loops' iteration counts, evaluated on the host:\n{}\n\
             void {f}_launch({})\n{{\n{}    {f}_kernel<<<grid, block>>>({});\n}}\n",
            self.count_text
                .iter()
                .map(|c| format!("//   {c}"))
                .collect::<Vec<_>>()
                .join("\n"),
            join_both(&self.params, &self.count_params),
            self.grid_text,
            join_both(&self.args, &self.count_args)
        ));
        cuda
    }
}

/// The kernel's first lines: each loop's counter from the grid (`y_index` on y, the
/// others on x), the return of threads past a count, and the loop variables.
fn index_code(headers: &[Header], y_index: Option<usize>) -> String {
    let mut code = String::new();
    let axis = |i: usize| if Some(i) == y_index { "y" } else { "x" };
    for (i, h) in headers.iter().enumerate() {
        let a = axis(i);
        code.push_str(&format!(
            "    long long k_{v} = (long long)blockIdx.{a} * blockDim.{a} + threadIdx.{a};\n",
            v = h.var
        ));
    }
    let guard: Vec<String> = headers
        .iter()
        .map(|h| format!("k_{v} >= count_{v}", v = h.var))
        .collect();
    code.push_str(&format!(
        "    if ({}) {{\n        return;\n    }}\n",
        guard.join(" || ")
    ));
    for h in headers {
        code.push_str(&format!(
            "    {ty} {v} = ({ty})(({a}) + ({s}) * k_{v});\n",
            ty = h.ty,
            v = h.var,
            a = h.start,
            s = h.step
        ));
    }
    code
}

/// The launch's `dim3 block` and `dim3 grid` covering every loop's count.
fn grid_text(
    headers: &[Header],
    x_index: usize,
    y_index: Option<usize>,
    block: [u32; 2],
) -> String {
    match y_index {
        Some(y) => format!(
            "    dim3 block({bx}, {by});\n    dim3 grid((unsigned)((count_{xv} + {bx} - 1) / {bx}), (unsigned)((count_{yv} + {by} - 1) / {by}));\n",
            bx = block[0],
            by = block[1],
            xv = headers[x_index].var,
            yv = headers[y].var
        ),
        None => format!(
            "    dim3 block({bx});\n    dim3 grid((unsigned)((count_{xv} + {bx} - 1) / {bx}));\n",
            bx = block[0],
            xv = headers[x_index].var
        ),
    }
}

/// The harness wrappers' flat parameters and what they are given.
struct HarnessInputs {
    /// `T name` of each flat parameter (struct fields flattened to `p__field`).
    flat_params: Vec<String>,
    /// The wrappers' first lines: each struct parameter rebuilt from its fields.
    rebuild: String,
    args: Vec<HarnessArg>,
    /// Buffers the nest writes, by flat name.
    outputs: Vec<String>,
}

/// The harness's flat parameters for the function's parameters: buffers sized by the
/// nest's sections, scalars from the values.
fn harness_inputs(
    advice: &FunctionAdvice,
    nest: &NestAdvice,
    source: &str,
    param_names: &[String],
    param_types: &[String],
) -> Result<HarnessInputs, String> {
    let structs = source::parse_structs(source);
    let mut flat_params = Vec::new();
    let mut rebuild = String::new();
    let mut harness_args = Vec::new();
    let mut outputs = Vec::new();
    let value_of = |name: &str| {
        advice
            .values
            .iter()
            .find(|(k, _)| k == name)
            .map(|(_, v)| *v)
    };
    let section_count = section_counter(nest);
    for (name, ty) in param_names.iter().zip(param_types) {
        if let Some(layout) = source::pointee_struct(&structs, ty) {
            let sname = struct_name(layout);
            rebuild.push_str(&format!("    {sname} {name}__s;\n"));
            for field in &layout.fields {
                let flat = format!("{name}__{}", field.name);
                let path = format!("{name}->{}", field.name);
                flat_params.push(format!("{} {flat}", field.ty));
                rebuild.push_str(&format!("    {name}__s.{} = {flat};\n", field.name));
                harness_args.push(flat_arg(
                    &flat,
                    &path,
                    &field.ty,
                    value_of(&path),
                    &section_count,
                )?);
                if field.pointee.is_some() && nest.outbound.iter().any(|p| p.name == path) {
                    outputs.push(flat.clone());
                }
            }
            rebuild.push_str(&format!("    {ty} {name} = &{name}__s;\n"));
        } else {
            flat_params.push(format!("{ty} {name}"));
            harness_args.push(flat_arg(name, name, ty, value_of(name), &section_count)?);
            if ty.contains('*') && nest.outbound.iter().any(|p| p.name == *name) {
                outputs.push(name.clone());
            }
        }
    }
    if outputs.is_empty() {
        return Err("the nest writes no array the harness can compare".into());
    }
    Ok(HarnessInputs {
        flat_params,
        rebuild,
        args: harness_args,
        outputs,
    })
}

/// The elements a buffer needs, by parameter path and element size: one past the highest
/// instantiated section of the nest. Arrays whose section is unknown (indexed by data) get
/// as many elements as the largest known array: the emulator's `:rand` integers are below
/// 100, so indices read from an input array stay inside it. `None` for an array the nest
/// does not access.
fn section_counter(nest: &NestAdvice) -> impl Fn(&str, i128) -> Option<i128> + '_ {
    let sections = || nest.inbound.iter().chain(&nest.outbound);
    let largest = sections()
        .filter_map(|p| p.instantiated.map(|[_, hi]| hi / 4 + 1))
        .max()
        .unwrap_or(1024)
        .max(100);
    move |name: &str, elem: i128| {
        let mut hi: Option<i128> = None;
        let mut accessed = false;
        let mut known = true;
        for p in sections().filter(|p| p.name == name) {
            accessed = true;
            match p.instantiated {
                Some([_, h]) => hi = Some(hi.map_or(h, |x: i128| x.max(h))),
                None => known = false,
            }
        }
        match hi {
            Some(h) if known => Some(h / elem + 1),
            _ => accessed.then_some(largest),
        }
    }
}

/// A declaration `T a, b, c;` without the loop variables (which the iteration function
/// takes as parameters); `None` when nothing is left.
fn without_loop_vars(decl: &str, vars: &[String]) -> Option<String> {
    let body = decl.trim_end_matches(';');
    let mut parts = body.split(',');
    let first = parts.next()?.trim();
    let name_at = first
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
        .map_or(0, |i| i + 1);
    let (ty, first_name) = first.split_at(name_at);
    let mut names: Vec<String> = std::iter::once(first_name.trim().to_string())
        .chain(parts.map(|p| p.trim().to_string()))
        .collect();
    let plain = |n: &str| {
        n.trim_start_matches('*')
            .split('=')
            .next()
            .unwrap_or("")
            .trim()
            .to_string()
    };
    names.retain(|n| !vars.contains(&plain(n)));
    if names.is_empty() {
        return None;
    }
    Some(format!("{} {};", ty.trim(), names.join(", ")))
}

/// Text without comments and preprocessor lines (`#pragma omp simd` between two loops).
fn code_only(text: &str) -> String {
    text.lines()
        .map(|l| l.split("//").next().unwrap_or(""))
        .filter(|l| !l.trim_start().starts_with('#'))
        .collect::<Vec<_>>()
        .join("\n")
}

fn struct_name(layout: &StructLayout) -> String {
    layout
        .names
        .iter()
        .find(|n| !n.starts_with("struct "))
        .or_else(|| layout.names.first())
        .cloned()
        .unwrap_or_default()
}

fn flat_arg(
    flat: &str,
    path: &str,
    ty: &str,
    value: Option<i128>,
    section_count: &dyn Fn(&str, i128) -> Option<i128>,
) -> Result<HarnessArg, String> {
    if ty.contains('*') {
        let (elem, size) = elem_of(ty).ok_or_else(|| {
            format!("`{path}` has element type `{ty}`, which the harness cannot fill")
        })?;
        // A pointer the loop does not access gets one element.
        let count = section_count(path, size).unwrap_or(1);
        return Ok(HarnessArg::Buffer {
            name: flat.to_string(),
            elem,
            count,
        });
    }
    let is_float = matches!(ty.trim(), "float" | "double");
    if is_float {
        return Ok(HarnessArg::Float {
            name: flat.to_string(),
            value: 0.25,
        });
    }
    match value {
        Some(v) => Ok(HarnessArg::Int {
            name: flat.to_string(),
            value: v,
        }),
        None => Ok(HarnessArg::Int {
            name: flat.to_string(),
            value: 0,
        }),
    }
}
