//! A streaming reader of clang's JSON AST dump (`-Xclang -ast-dump=json`).
//!
//! The dump of one CUDA file is 40 to 200 MB, almost all of it from headers and function
//! bodies, so it is never turned into a tree: serde walks the text once and keeps only
//!
//! * function declarations (including those in namespaces, `extern "C"` blocks and function
//!   template specialisations): name, mangled name, parameters (name and type), whether
//!   they are kernels (`CUDAGlobalAttr`, `OpenCLKernelAttr`, `DeviceKernelAttr`) and whether
//!   they have a body;
//! * typedefs and type aliases (name to type);
//! * complete records (name, kind, field types, `aligned`/`packed` attributes) and enum
//!   names, to classify parameter types in [`super::ctype`].
//!
//! Everything else — statements, expressions, locations — is skipped with
//! `serde::de::IgnoredAny`. The walk relies on clang writing a node's `"kind"` before its
//! `"inner"` children, which `JSONNodeDumper` always does.

use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::collections::{HashMap, HashSet};
use std::fmt;
use std::io::Read;

/// What the AST says about the translation unit, as far as signatures need it.
#[derive(Debug, Default)]
pub(crate) struct AstFacts {
    pub functions: Vec<AstFunction>,
    /// Typedef and alias names to their (desugared, when clang gives it) type.
    pub typedefs: HashMap<String, String>,
    pub records: HashMap<String, RecordInfo>,
    pub enums: HashSet<String>,
    /// An unnamed record just read: `typedef struct { ... } Name;` names it on the next node.
    pending_anonymous_record: Option<RecordInfo>,
    /// Treat type names that are neither builtin nor declared as records of unknown layout
    /// (for types read from demangled names, where no declarations are at hand).
    pub assume_unknown_names_are_records: bool,
}

#[derive(Debug, Default, Clone)]
pub(crate) struct AstFunction {
    pub name: String,
    pub mangled_name: Option<String>,
    pub params: Vec<AstParam>,
    pub is_kernel: bool,
    pub has_body: bool,
}

#[derive(Debug, Default, Clone)]
pub(crate) struct AstParam {
    pub name: String,
    pub qual_type: String,
}

#[derive(Debug, Default, Clone)]
pub(crate) struct RecordInfo {
    /// `struct`, `class` or `union`.
    pub tag: String,
    pub field_types: Vec<String>,
    /// The fields' names, in the order of `field_types` (empty for an unnamed field).
    pub field_names: Vec<String>,
    /// The value of an `aligned(N)` attribute on the record.
    pub aligned: Option<u64>,
    pub packed: bool,
}

/// Reads a whole dump from `reader`. The text is read into memory first: serde_json parses a
/// slice several times faster than a reader.
pub(crate) fn read_ast(mut reader: impl Read) -> Result<AstFacts, serde_json::Error> {
    let mut facts = AstFacts::default();
    let mut bytes = Vec::new();
    reader
        .read_to_end(&mut bytes)
        .map_err(serde_json::Error::io)?;
    let mut deserializer = serde_json::Deserializer::from_slice(&bytes);
    // Expression trees nest deeper than serde_json's default limit of 128; the caller runs
    // this on a thread with a large stack.
    deserializer.disable_recursion_limit();
    NodeSeed { facts: &mut facts }.deserialize(&mut deserializer)?;
    deserializer.end()?;
    Ok(facts)
}

/// The keys the walk cares about; anything else is skipped without allocating.
enum Key {
    Kind,
    Name,
    MangledName,
    Type,
    TagUsed,
    CompleteDefinition,
    Value,
    Inner,
    Other,
}

impl<'de> de::Deserialize<'de> for Key {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<Key, D::Error> {
        struct KeyVisitor;
        impl Visitor<'_> for KeyVisitor {
            type Value = Key;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an AST node key")
            }
            fn visit_str<E: de::Error>(self, key: &str) -> Result<Key, E> {
                Ok(match key {
                    "kind" => Key::Kind,
                    "name" => Key::Name,
                    "mangledName" => Key::MangledName,
                    "type" => Key::Type,
                    "tagUsed" => Key::TagUsed,
                    "completeDefinition" => Key::CompleteDefinition,
                    "value" => Key::Value,
                    "inner" => Key::Inner,
                    _ => Key::Other,
                })
            }
        }
        deserializer.deserialize_identifier(KeyVisitor)
    }
}

/// `"type": {"qualType": "...", "desugaredQualType": "..."}`.
#[derive(serde::Deserialize, Default)]
struct TypeField {
    #[serde(rename = "qualType", default)]
    qual_type: Option<String>,
    #[serde(rename = "desugaredQualType", default)]
    desugared_qual_type: Option<String>,
}

/// How a node's children are treated, decided by the node's kind.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Role {
    /// Translation unit, namespace, `extern "C"`, function template: look at every child.
    Container,
    Function,
    Record,
    Typedef,
    Enum,
    Skip,
}

fn role_of(kind: &str) -> Role {
    match kind {
        "TranslationUnitDecl"
        | "NamespaceDecl"
        | "LinkageSpecDecl"
        | "FunctionTemplateDecl"
        | "ExternCContextDecl" => Role::Container,
        "FunctionDecl" => Role::Function,
        "CXXRecordDecl" | "RecordDecl" => Role::Record,
        "TypedefDecl" | "TypeAliasDecl" => Role::Typedef,
        "EnumDecl" => Role::Enum,
        _ => Role::Skip,
    }
}

/// Any declaration node at container level.
struct NodeSeed<'a> {
    facts: &'a mut AstFacts,
}

impl<'de> DeserializeSeed<'de> for NodeSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_map(self)
    }
}

impl<'de> Visitor<'de> for NodeSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a clang AST node")
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        let mut role = Role::Skip;
        let mut name: Option<String> = None;
        let mut mangled_name: Option<String> = None;
        let mut ty = TypeField::default();
        let mut tag: Option<String> = None;
        let mut complete = false;
        let mut function = AstFunction::default();
        let mut record = RecordInfo::default();
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::Kind => {
                    let kind: String = map.next_value()?;
                    role = role_of(&kind);
                }
                Key::Name if role != Role::Skip => name = Some(map.next_value()?),
                Key::MangledName if role == Role::Function => {
                    mangled_name = Some(map.next_value()?)
                }
                Key::Type if role != Role::Skip => ty = map.next_value()?,
                Key::TagUsed if role == Role::Record => tag = Some(map.next_value()?),
                Key::CompleteDefinition if role == Role::Record => complete = map.next_value()?,
                Key::Inner => match role {
                    Role::Container => map.next_value_seed(ChildrenSeed {
                        facts: &mut *self.facts,
                    })?,
                    Role::Function => map.next_value_seed(FunctionChildrenSeed {
                        function: &mut function,
                    })?,
                    Role::Record => map.next_value_seed(RecordChildrenSeed {
                        record: &mut record,
                    })?,
                    _ => {
                        map.next_value::<IgnoredAny>()?;
                    }
                },
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        let pending_anonymous_record = self.facts.pending_anonymous_record.take();
        match role {
            Role::Function => {
                function.name = name.unwrap_or_default();
                function.mangled_name = mangled_name;
                self.facts.functions.push(function);
            }
            Role::Record => {
                if complete {
                    record.tag = tag.unwrap_or_else(|| "struct".to_string());
                    match name.filter(|n| !n.is_empty()) {
                        Some(name) => {
                            self.facts.records.insert(name, record);
                        }
                        None => self.facts.pending_anonymous_record = Some(record),
                    }
                }
            }
            Role::Typedef => {
                if let Some(name) = name {
                    let names_the_anonymous_record = ty.desugared_qual_type.as_deref()
                        == Some(name.as_str())
                        || ty.qual_type.as_deref().is_some_and(|q| {
                            q.strip_prefix("struct ")
                                .or_else(|| q.strip_prefix("union "))
                                == Some(name.as_str())
                        });
                    if let (Some(record), true) =
                        (pending_anonymous_record, names_the_anonymous_record)
                    {
                        self.facts.records.entry(name.clone()).or_insert(record);
                    }
                    if let Some(target) = ty.desugared_qual_type.or(ty.qual_type) {
                        self.facts.typedefs.insert(name, target);
                    }
                }
            }
            Role::Enum => {
                if let Some(name) = name {
                    self.facts.enums.insert(name);
                }
            }
            Role::Container | Role::Skip => {}
        }
        Ok(())
    }
}

struct ChildrenSeed<'a> {
    facts: &'a mut AstFacts,
}

impl<'de> DeserializeSeed<'de> for ChildrenSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for ChildrenSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("a list of AST nodes")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while seq
            .next_element_seed(NodeSeed {
                facts: &mut *self.facts,
            })?
            .is_some()
        {}
        Ok(())
    }
}

/// The children of a FunctionDecl: parameters, attributes, the body.
struct FunctionChildrenSeed<'a> {
    function: &'a mut AstFunction,
}

impl<'de> DeserializeSeed<'de> for FunctionChildrenSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for FunctionChildrenSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the children of a function declaration")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(child) = seq.next_element::<FunctionChild>()? {
            match child.kind.as_str() {
                "ParmVarDecl" => self.function.params.push(AstParam {
                    name: child.name.unwrap_or_default(),
                    qual_type: child.qual_type.unwrap_or_default(),
                }),
                "CUDAGlobalAttr" | "OpenCLKernelAttr" | "DeviceKernelAttr" => {
                    self.function.is_kernel = true
                }
                "CompoundStmt" => self.function.has_body = true,
                _ => {}
            }
        }
        Ok(())
    }
}

/// A child of a function: only its kind, name and type are read.
struct FunctionChild {
    kind: String,
    name: Option<String>,
    qual_type: Option<String>,
}

impl<'de> de::Deserialize<'de> for FunctionChild {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<FunctionChild, D::Error> {
        struct ChildVisitor;
        impl<'de> Visitor<'de> for ChildVisitor {
            type Value = FunctionChild;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an AST node")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<FunctionChild, A::Error> {
                let mut child = FunctionChild {
                    kind: String::new(),
                    name: None,
                    qual_type: None,
                };
                while let Some(key) = map.next_key::<Key>()? {
                    match key {
                        Key::Kind => child.kind = map.next_value()?,
                        Key::Name if child.kind == "ParmVarDecl" => {
                            child.name = Some(map.next_value()?)
                        }
                        Key::Type if child.kind == "ParmVarDecl" => {
                            let ty: TypeField = map.next_value()?;
                            child.qual_type = ty.qual_type;
                        }
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(child)
            }
        }
        deserializer.deserialize_map(ChildVisitor)
    }
}

/// The children of a record: fields and layout attributes.
struct RecordChildrenSeed<'a> {
    record: &'a mut RecordInfo,
}

impl<'de> DeserializeSeed<'de> for RecordChildrenSeed<'_> {
    type Value = ();
    fn deserialize<D: Deserializer<'de>>(self, deserializer: D) -> Result<(), D::Error> {
        deserializer.deserialize_seq(self)
    }
}

impl<'de> Visitor<'de> for RecordChildrenSeed<'_> {
    type Value = ();
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("the children of a record")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        while let Some(child) = seq.next_element::<RecordChild>()? {
            match child.kind.as_str() {
                "FieldDecl" => {
                    self.record
                        .field_types
                        .push(child.qual_type.unwrap_or_default());
                    self.record.field_names.push(child.name.unwrap_or_default());
                }
                "AlignedAttr" => self.record.aligned = child.value.and_then(|v| v.parse().ok()),
                "PackedAttr" => self.record.packed = true,
                _ => {}
            }
        }
        Ok(())
    }
}

/// A child of a record: its kind, a field's type, or the first `"value"` below an attribute
/// (the evaluated alignment of `aligned(N)`).
struct RecordChild {
    kind: String,
    name: Option<String>,
    qual_type: Option<String>,
    value: Option<String>,
}

impl<'de> de::Deserialize<'de> for RecordChild {
    fn deserialize<D: Deserializer<'de>>(deserializer: D) -> Result<RecordChild, D::Error> {
        struct ChildVisitor;
        impl<'de> Visitor<'de> for ChildVisitor {
            type Value = RecordChild;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("an AST node")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<RecordChild, A::Error> {
                let mut child = RecordChild {
                    kind: String::new(),
                    name: None,
                    qual_type: None,
                    value: None,
                };
                while let Some(key) = map.next_key::<Key>()? {
                    match key {
                        Key::Kind => child.kind = map.next_value()?,
                        Key::Name => child.name = map.next_value()?,
                        Key::Type if child.kind == "FieldDecl" => {
                            let ty: TypeField = map.next_value()?;
                            child.qual_type = ty.desugared_qual_type.or(ty.qual_type);
                        }
                        Key::Inner if child.kind == "AlignedAttr" => {
                            child.value = map.next_value_seed(FirstValueSeed)?;
                        }
                        _ => {
                            map.next_value::<IgnoredAny>()?;
                        }
                    }
                }
                Ok(child)
            }
        }
        deserializer.deserialize_map(ChildVisitor)
    }
}

/// The first `"value"` string in a list of nodes (depth-first).
struct FirstValueSeed;

impl<'de> DeserializeSeed<'de> for FirstValueSeed {
    type Value = Option<String>;
    fn deserialize<D: Deserializer<'de>>(
        self,
        deserializer: D,
    ) -> Result<Option<String>, D::Error> {
        deserializer.deserialize_any(self)
    }
}

impl<'de> Visitor<'de> for FirstValueSeed {
    type Value = Option<String>;
    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("AST nodes")
    }
    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Option<String>, A::Error> {
        let mut found = None;
        while let Some(value) = seq.next_element_seed(FirstValueSeed)? {
            found = found.or(value);
        }
        Ok(found)
    }
    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Option<String>, A::Error> {
        let mut found = None;
        while let Some(key) = map.next_key::<Key>()? {
            match key {
                Key::Value if found.is_none() => {
                    let value: serde_json::Value = map.next_value()?;
                    found = value.as_str().map(str::to_string);
                }
                Key::Inner => {
                    let inner = map.next_value_seed(FirstValueSeed)?;
                    found = found.or(inner);
                }
                _ => {
                    map.next_value::<IgnoredAny>()?;
                }
            }
        }
        Ok(found)
    }
    fn visit_str<E: de::Error>(self, _: &str) -> Result<Option<String>, E> {
        Ok(None)
    }
    fn visit_bool<E: de::Error>(self, _: bool) -> Result<Option<String>, E> {
        Ok(None)
    }
    fn visit_i64<E: de::Error>(self, _: i64) -> Result<Option<String>, E> {
        Ok(None)
    }
    fn visit_u64<E: de::Error>(self, _: u64) -> Result<Option<String>, E> {
        Ok(None)
    }
    fn visit_f64<E: de::Error>(self, _: f64) -> Result<Option<String>, E> {
        Ok(None)
    }
    fn visit_unit<E: de::Error>(self) -> Result<Option<String>, E> {
        Ok(None)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keeps_functions_typedefs_and_records() {
        let dump = r#"{"id":"0x1","kind":"TranslationUnitDecl","loc":{},"inner":[
          {"id":"0x2","kind":"TypedefDecl","name":"real_t","type":{"qualType":"float"},"inner":[{"kind":"BuiltinType"}]},
          {"id":"0x3","kind":"CXXRecordDecl","name":"P","tagUsed":"struct","completeDefinition":true,"inner":[
            {"kind":"AlignedAttr","inner":[{"kind":"ConstantExpr","value":"16","inner":[{"kind":"IntegerLiteral","value":"16"}]}]},
            {"kind":"CXXRecordDecl","name":"P","isImplicit":true},
            {"kind":"FieldDecl","name":"n","type":{"qualType":"int"}},
            {"kind":"FieldDecl","name":"w","type":{"qualType":"double[3]"}}]},
          {"id":"0x4","kind":"NamespaceDecl","name":"ns","inner":[
            {"id":"0x5","kind":"FunctionDecl","name":"k","mangledName":"_ZN2ns1kEPfS_","type":{"qualType":"void (float *, P)"},"inner":[
              {"kind":"ParmVarDecl","name":"out","type":{"qualType":"float *"}},
              {"kind":"ParmVarDecl","name":"p","type":{"qualType":"P"}},
              {"kind":"CompoundStmt","inner":[{"kind":"ReturnStmt","inner":[[[[]]]]}]},
              {"kind":"CUDAGlobalAttr"}]}]},
          {"id":"0x6","kind":"EnumDecl","name":"Mode","inner":[]},
          {"id":"0x8","kind":"RecordDecl","tagUsed":"struct","completeDefinition":true,"inner":[
            {"kind":"FieldDecl","name":"w","type":{"qualType":"int"}}]},
          {"id":"0x9","kind":"TypedefDecl","name":"Image","type":{"desugaredQualType":"Image","qualType":"struct Image"}},
          {"id":"0x7","kind":"FunctionDecl","name":"decl_only","mangledName":"_Z9decl_onlyv","inner":[]}
        ]}"#;
        let facts = read_ast(dump.as_bytes()).unwrap();
        assert_eq!(
            facts.typedefs.get("real_t").map(String::as_str),
            Some("float")
        );
        let record = &facts.records["P"];
        assert_eq!(record.field_types, vec!["int", "double[3]"]);
        assert_eq!(record.field_names, vec!["n", "w"]);
        assert_eq!(record.aligned, Some(16));
        assert!(facts.enums.contains("Mode"));
        assert_eq!(facts.records["Image"].field_types, vec!["int"]);
        assert_eq!(facts.functions.len(), 2);
        let kernel = &facts.functions[0];
        assert_eq!(kernel.mangled_name.as_deref(), Some("_ZN2ns1kEPfS_"));
        assert!(kernel.is_kernel && kernel.has_body);
        assert_eq!(
            kernel
                .params
                .iter()
                .map(|p| p.name.as_str())
                .collect::<Vec<_>>(),
            vec!["out", "p"]
        );
        assert!(!facts.functions[1].is_kernel && !facts.functions[1].has_body);
    }

    #[test]
    fn rejects_truncated_dumps() {
        assert!(
            read_ast(&br#"{"kind":"TranslationUnitDecl","inner":[{"kind":"FunctionDecl""#[..])
                .is_err()
        );
    }
}
