//! Lowering of a whole module: directives, module variables, function signatures, then
//! function bodies.
//!
//! Passes:
//! 1. collect the `.version`/`.target`/`.address_size`/`.file` directives, every module
//!    variable and every function, so bodies can refer to symbols declared later in the
//!    text. A function declared and later defined (`.func f(...);` … `.func f(...) {…}`)
//!    is one function; an `extern` variable and its definition are one variable;
//! 2. evaluate module variable initialisers (they may take symbol addresses);
//! 3. lower each body ([`crate::body`]).
//!
//! Every error is collected; the result is the program only if there were none.

use std::collections::HashMap;

use warpcheck_ptx::Span;
use warpcheck_ptx::ast::{self, Item, StateSpace};

use crate::body::BodyLowering;
use crate::entity::{EntityVec, FuncId, VarId};
use crate::error::LowerError;
use crate::operand::Symbol;
use crate::program::{Function, Program};
use crate::source_map::{SourceFile, SourceFiles};
use crate::symbols::{self, Linkage, PtrAttributes, Tuning, VarRole, VarScope, Variable};
use crate::types::Type;

/// Lowers a parsed module into a [`Program`], or returns every error found.
pub fn lower(module: &ast::Module) -> Result<Program, Vec<LowerError>> {
    let mut errors = Vec::new();
    let mut version = None;
    let mut targets = Vec::new();
    let mut address_size = 64;
    let mut files = SourceFiles::default();
    let mut variables: EntityVec<VarId, Variable> = EntityVec::new();
    let mut globals = Vec::new();
    let mut module_symbols: HashMap<String, Symbol> = HashMap::new();
    let mut var_decls: Vec<(VarId, &ast::VariableDecl, &ast::Declarator)> = Vec::new();

    // Pass 1a: choose, for every function name, the definition (or the first declaration).
    let (function_order, chosen) = choose_functions(module, &mut errors);
    let mut functions: EntityVec<FuncId, Function> = EntityVec::new();
    for &name in &function_order {
        let f = chosen[name];
        let id = functions.next_key();
        module_symbols.insert(name.to_string(), Symbol::Func(id));
        let (params, param_space_size) =
            signature_vars(&f.params, id, &mut variables, &mut errors, false);
        let (returns, _) = signature_vars(&f.returns, id, &mut variables, &mut errors, true);
        let tuning = tuning(f, &mut errors);
        functions.push(Function {
            name: name.to_string(),
            demangled: symbols::demangled(name),
            kind: f.kind.value,
            linkage: Linkage::from_ast(&f.linkage),
            params,
            returns,
            param_space_size,
            tuning,
            body: None,
            span: f.span,
        });
    }

    // Pass 1b: directives and module variables.
    for item in &module.items {
        match item {
            Item::Version { major, minor, .. } => version = Some((*major, *minor)),
            Item::Target { targets: t, .. } => targets.extend(t.iter().map(|t| t.value.clone())),
            Item::AddressSize { bits, span } => {
                if *bits == 32 || *bits == 64 {
                    address_size = *bits;
                } else {
                    errors.push(LowerError::new(
                        format!("`.address_size {bits}` is not 32 or 64"),
                        *span,
                    ));
                }
            }
            Item::File(f) => files.insert(SourceFile {
                index: f.index,
                path: f.path.value.clone(),
                timestamp: f.extra.first().map(|e| e.value),
                size: f.extra.get(1).map(|e| e.value),
            }),
            Item::Variable(decl) => {
                if matches!(
                    decl.space.value,
                    StateSpace::Reg | StateSpace::Sreg | StateSpace::Param | StateSpace::Local
                ) {
                    // `.local` at module scope is deprecated but legal; registers and
                    // params are not.
                    if decl.space.value != StateSpace::Local {
                        errors.push(LowerError::new(
                            format!(
                                "`.{}` variables cannot be declared at module scope",
                                decl.space.value.name()
                            ),
                            decl.space.span,
                        ));
                        continue;
                    }
                }
                for d in &decl.declarators {
                    let var = match module_variable(decl, d) {
                        Ok(v) => v,
                        Err(e) => {
                            errors.push(e);
                            continue;
                        }
                    };
                    match module_symbols.get(&d.name.value) {
                        Some(Symbol::Var(existing)) => {
                            let existing = *existing;
                            let old_extern = variables[existing].linkage == Linkage::Extern;
                            if old_extern || var.linkage == Linkage::Extern {
                                if old_extern && var.linkage != Linkage::Extern {
                                    variables[existing] = var;
                                    var_decls.retain(|(id, _, _)| *id != existing);
                                    var_decls.push((existing, decl, d));
                                }
                            } else {
                                errors.push(LowerError::new(
                                    format!("variable `{}` is declared twice", d.name.value),
                                    d.name.span,
                                ));
                            }
                        }
                        Some(Symbol::Func(_)) => {
                            errors.push(LowerError::new(
                                format!("`{}` is already a function", d.name.value),
                                d.name.span,
                            ));
                        }
                        None => {
                            let id = variables.push(var);
                            module_symbols.insert(d.name.value.clone(), Symbol::Var(id));
                            globals.push(id);
                            var_decls.push((id, decl, d));
                        }
                    }
                }
            }
            Item::Alias {
                alias,
                aliasee,
                span,
            } => match module_symbols.get(&aliasee.value).copied() {
                Some(symbol @ Symbol::Func(_)) => {
                    module_symbols.insert(alias.value.clone(), symbol);
                }
                _ => errors.push(LowerError::new(
                    format!("`.alias` target `{}` is not a function", aliasee.value),
                    *span,
                )),
            },
            Item::Function(_) | Item::Section(_) | Item::Pragma { .. } => {}
        }
    }

    // Pass 2: module initialisers.
    for (id, _decl, d) in &var_decls {
        let Some(init) = &d.init else { continue };
        let (ty, size) = (variables[*id].ty, variables[*id].size);
        let resolve = |n: &str| module_symbols.get(n).copied();
        match symbols::eval_initializer(init, ty, size, d.span, &resolve) {
            Ok((value, size)) => {
                variables[*id].size = Some(size);
                variables[*id].init = Some(value);
            }
            Err(e) => errors.push(e),
        }
    }

    // Pass 3: bodies.
    for (id, &name) in function_order.iter().enumerate() {
        let f = chosen[name];
        let Some(block) = &f.body else { continue };
        let id = FuncId::from_u32(id as u32);
        let params: Vec<VarId> = functions[id]
            .params
            .iter()
            .chain(&functions[id].returns)
            .copied()
            .collect();
        let mut lowering = BodyLowering::new(id, name, &mut variables, &module_symbols);
        lowering.bind_params(&params);
        let (body, body_errors) = lowering.lower(block);
        errors.extend(body_errors.into_iter().map(|mut e| {
            e.function.get_or_insert_with(|| name.to_string());
            e
        }));
        functions[id].body = Some(body);
    }

    if errors.is_empty() {
        Ok(Program {
            version,
            targets,
            address_size,
            functions,
            variables,
            globals,
            files,
            module_symbols,
        })
    } else {
        Err(errors)
    }
}

/// For every function name, in order of first appearance, the definition (or the first
/// declaration when there is no definition); a second definition is an error.
fn choose_functions<'m>(
    module: &'m ast::Module,
    errors: &mut Vec<LowerError>,
) -> (Vec<&'m str>, HashMap<&'m str, &'m ast::Function>) {
    let mut function_order: Vec<&str> = Vec::new();
    let mut chosen: HashMap<&str, &ast::Function> = HashMap::new();
    for item in &module.items {
        let Item::Function(f) = item else { continue };
        let name = f.name.value.as_str();
        match chosen.get(name) {
            None => {
                function_order.push(name);
                chosen.insert(name, f);
            }
            Some(previous) => match (previous.body.is_some(), f.body.is_some()) {
                (false, true) => {
                    chosen.insert(name, f);
                }
                (true, true) => errors.push(LowerError::new(
                    format!("function `{name}` is defined twice"),
                    f.name.span,
                )),
                _ => {}
            },
        }
    }
    (function_order, chosen)
}

/// A module-scope variable without its initialiser (evaluated in pass 2).
fn module_variable(decl: &ast::VariableDecl, d: &ast::Declarator) -> Result<Variable, LowerError> {
    if d.range.is_some() {
        return Err(LowerError::new(
            format!("`{}<N>` ranges are only valid for registers", d.name.value),
            d.span,
        ));
    }
    let symbols::Layout { dims, size, align } = symbols::layout(decl, d)?;
    Ok(Variable {
        name: d.name.value.clone(),
        demangled: symbols::demangled(&d.name.value),
        space: decl.space.value,
        ty: Type::from_ast(decl.ty.value),
        vector: decl.vector.as_ref().map(|v| v.value),
        dims,
        size,
        align,
        init: None,
        linkage: Linkage::from_ast(&decl.linkage),
        scope: VarScope::Module,
        role: VarRole::Global,
        ptr: None,
        attributes: decl
            .attributes
            .iter()
            .map(|a| a.value.trim_start_matches('.').to_string())
            .collect(),
        span: d.span,
    })
}

/// Parameter (or return) variables of a function, laid out in order; returns them and
/// the size of the parameter space they occupy.
fn signature_vars(
    decls: &[ast::VariableDecl],
    func: FuncId,
    variables: &mut EntityVec<VarId, Variable>,
    errors: &mut Vec<LowerError>,
    returns: bool,
) -> (Vec<VarId>, u64) {
    let mut out = Vec::new();
    let mut offset = 0u64;
    for decl in decls {
        if decl.space.value != StateSpace::Param && decl.space.value != StateSpace::Reg {
            errors.push(LowerError::new(
                format!(
                    "parameters must be `.param` (or `.reg`), not `.{}`",
                    decl.space.value.name()
                ),
                decl.space.span,
            ));
            continue;
        }
        for d in &decl.declarators {
            let symbols::Layout { dims, size, align } = match symbols::layout(decl, d) {
                Ok(l) => l,
                Err(e) => {
                    errors.push(e);
                    continue;
                }
            };
            let Some(size) = size else {
                errors.push(LowerError::new(
                    format!("parameter `{}` has no size", d.name.value),
                    d.span,
                ));
                continue;
            };
            let Some(start) =
                symbols::align_up(offset, align).filter(|s| s.checked_add(size).is_some())
            else {
                errors.push(LowerError::new(
                    format!(
                        "parameter `{}` does not fit in the parameter space",
                        d.name.value
                    ),
                    d.span,
                ));
                continue;
            };
            offset = start;
            let index = out.len() as u32;
            let role = if returns {
                VarRole::Return { index, offset }
            } else {
                VarRole::Param { index, offset }
            };
            let id = variables.push(Variable {
                name: d.name.value.clone(),
                demangled: None,
                space: decl.space.value,
                ty: Type::from_ast(decl.ty.value),
                vector: decl.vector.as_ref().map(|v| v.value),
                dims,
                size: Some(size),
                align,
                init: None,
                linkage: Linkage::Internal,
                scope: VarScope::Function(func),
                role,
                ptr: decl.ptr.as_ref().map(|p| PtrAttributes {
                    space: p.space.as_ref().map(|s| s.value),
                    align: p.align.as_ref().map(|a| a.value),
                }),
                attributes: decl
                    .attributes
                    .iter()
                    .map(|a| a.value.trim_start_matches('.').to_string())
                    .collect(),
                span: d.span,
            });
            out.push(id);
            offset += size;
        }
    }
    (out, offset)
}

/// Performance-tuning directives and attributes of a function (§11.4).
fn tuning(f: &ast::Function, errors: &mut Vec<LowerError>) -> Tuning {
    let mut t = Tuning {
        attributes: f
            .attributes
            .iter()
            .map(|a| a.value.trim_start_matches('.').to_string())
            .collect(),
        ..Tuning::default()
    };
    for d in &f.directives {
        let span: Span = d.span;
        let result = match d.name.value.trim_start_matches('.') {
            "maxntid" => symbols::dims3(&d.args, span).map(|v| t.maxntid = Some(v)),
            "reqntid" => symbols::dims3(&d.args, span).map(|v| t.reqntid = Some(v)),
            "minnctapersm" => one_u32(&d.args, span).map(|v| t.minnctapersm = Some(v)),
            "maxnreg" => one_u32(&d.args, span).map(|v| t.maxnreg = Some(v)),
            "maxclusterrank" => one_u32(&d.args, span).map(|v| t.maxclusterrank = Some(v)),
            "pragma" => Ok(()),
            other => {
                t.attributes.push(other.to_string());
                Ok(())
            }
        };
        if let Err(e) = result {
            errors.push(e);
        }
    }
    t
}

fn one_u32(args: &[ast::DirectiveArg], span: Span) -> Result<u32, LowerError> {
    match args {
        [arg] => symbols::directive_u32(arg, span),
        _ => Err(LowerError::new("expected one integer", span)),
    }
}
