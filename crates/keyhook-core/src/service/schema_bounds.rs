//! How much work checking data against an event type's JSON Schema may take (CONTRACT §10.1).
//!
//! jsonschema validates by applying subschemas to places in the data, and it follows every
//! applicator without memoising: a `$ref` cycle that stays at the same place never ends, and
//! `allOf: [{$ref: next}, {$ref: next}]` nested 30 times applies 2^30 subschemas to one value.
//! This module reads a schema as a graph (a node per subschema, `$ref`s resolved as
//! jsonschema resolves them) and bounds, for each depth `k` of the data (at most
//! [`DATA_DEPTH`]), how many subschemas are applied to one value at depth `k`:
//! - in place (`allOf`, `anyOf`, `oneOf`, `not`, `if`/`then`/`else`, `dependentSchemas`,
//!   `dependencies`, `$ref`, `$dynamicRef` to every `$dynamicAnchor` of its name): the
//!   applications add up, each edge counted as often as it is written; a cycle of such edges
//!   applies forever and is refused ([`analyse`]);
//! - one level down: a property gets the `properties` entry of its name, or else
//!   `additionalProperties`, in every subschema applied to its object (the names are told
//!   apart), plus `patternProperties`, `unevaluatedProperties` and `propertyNames`; an item gets
//!   `prefixItems`/`items`, `contains`, `unevaluatedItems` and `additionalItems`; a value is
//!   an object or an array, never both;
//! - `unevaluatedProperties`/`unevaluatedItems` make jsonschema apply the subschemas in place
//!   again to learn what they evaluated: counted once more, with their own in-place subschemas.
//!
//! The bound is an upper bound: every branch counts as taken. [`Bounds::per_value`] is the
//! most at one value (a schema is refused above [`MAX_PER_VALUE`]), [`Bounds::work`] the sum
//! over the values of one `data` (an emit is refused above [`WORK_BUDGET`], before jsonschema
//! runs, whatever schema the database holds).

use std::collections::HashMap;

use referencing::{Draft, Registry, Resolver};
use serde_json::Value;

/// How deep data nests at most: keyhook parses JSON with serde_json's recursion limit of 128
/// (`input::parse_json`), so `data` (inside the request's object) is at most 127 deep.
pub const DATA_DEPTH: usize = 128;
/// The most subschema applications a schema may make at one value of the data, at any depth.
pub const MAX_PER_VALUE: u64 = 1_000;
/// The most subschema applications one validation may make (the bound, summed over the
/// values of the data, is checked before validating).
pub const WORK_BUDGET: u64 = 1_000_000;
/// What a subschema whose `pattern` has a lookaround or a backreference counts for: such a
/// pattern runs on a backtracking engine, up to `event_types::PATTERN_BACKTRACK_MAX` steps a
/// string, about the time of a thousand applications.
pub const BACKTRACKING_PATTERN_WEIGHT: u64 = 1_000;
/// The most steps the analysis itself takes (a schema that needs more is refused).
const ANALYSIS_MAX: u64 = 20_000_000;

/// Stack jsonschema may take per subschema it compiles inside another: it compiles each
/// `$ref` target inside the referring subschema, also while validating (a `$ref` seen twice is
/// compiled on first use). Measured up to 12.5 KiB per `$ref` and 22.5 KiB per level of
/// `properties` in a debug build (a release build takes less).
const COMPILE_FRAME: u64 = 24 << 10;
/// Stack one application inside another takes while validating (measured up to 1.7 KiB per
/// application, 5 KiB per level of `properties` with a `$ref`, in a debug build).
const CHECK_FRAME: u64 = 4 << 10;

/// The only draft taken (CONTRACT §10.1).
pub const DRAFT_2020_12: &str = "https://json-schema.org/draft/2020-12/schema";

/// Where the analysed document lives in its registry (no schema names it).
const BASE: &str = "urn:keyhook:schema";

/// What a schema may apply at one value of each depth of the data.
#[derive(Debug, Clone, PartialEq)]
pub struct Bounds {
    /// `per_depth[k]`: the most applications at one value `k` levels deep (0: `data` itself).
    per_depth: Vec<u64>,
    /// [`Bounds::per_value`].
    per_value: u64,
    /// `longest[k]`: the longest chain of applications, each inside the last, down to a
    /// value `k` levels deep (how deep the validator recurses).
    longest: Vec<u64>,
    /// The subschemas reachable from the root: the most jsonschema compiles inside another.
    reachable: u64,
    /// Whether some subschema is the target of two `$ref`s (the root counting as one): then
    /// jsonschema compiles it again, lazily, while validating.
    lazy: bool,
}

impl Bounds {
    /// The most applications at one value, at any depth up to [`DATA_DEPTH`], each counted
    /// once (a backtracking pattern's weight is the budget's, not this limit's).
    pub fn per_value(&self) -> u64 {
        self.per_value
    }

    /// The most applications validating `data` may make: for each value in it, the bound of
    /// its depth (saturating).
    pub fn work(&self, data: &Value) -> u64 {
        self.cost(data).work
    }

    /// The stack compiling the schema may take, at most.
    pub fn compile_stack(&self) -> u64 {
        self.reachable.saturating_mul(COMPILE_FRAME)
    }

    /// The stack validating data of `cost` may take, at most: its longest chain of
    /// applications, and a compile (of a `$ref` first used) at the end of it.
    pub fn check_stack(&self, cost: Cost) -> u64 {
        let compile = if self.lazy { self.compile_stack() } else { 0 };
        cost.chain
            .saturating_mul(CHECK_FRAME)
            .saturating_add(compile)
    }

    /// What validating `data` may cost: [`Bounds::work`], and how deep the validator may
    /// recurse (the longest chain down to the deepest of its values).
    pub fn cost(&self, data: &Value) -> Cost {
        let mut total = 0u64;
        let mut deepest = 0usize;
        let mut stack = vec![(data, 0usize)];
        while let Some((v, depth)) = stack.pop() {
            let Some(at) = self.per_depth.get(depth) else {
                return Cost {
                    work: u64::MAX,
                    chain: u64::MAX,
                };
            };
            deepest = deepest.max(depth);
            total = total.saturating_add(*at);
            match v {
                Value::Array(items) => stack.extend(items.iter().map(|i| (i, depth + 1))),
                Value::Object(map) => stack.extend(map.values().map(|i| (i, depth + 1))),
                _ => {}
            }
        }
        Cost {
            work: total,
            chain: self.longest[..=deepest].iter().copied().max().unwrap_or(0),
        }
    }
}

/// What checking one `data` may cost ([`Bounds::cost`]).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Cost {
    /// Subschema applications, at most.
    pub work: u64,
    /// The longest chain of applications, each inside the last.
    pub chain: u64,
}

/// One subschema.
#[derive(Default)]
struct Node {
    /// How it is named in messages: a JSON pointer into the document, or the reference.
    label: String,
    /// Applied at the same value, each with how often.
    in_place: Vec<(usize, u64)>,
    /// `properties`, by interned name.
    properties: Vec<(u32, usize)>,
    /// `additionalProperties`: applied to a property `properties` does not name.
    additional: Option<usize>,
    /// Applied to every property or key.
    any_property: Vec<usize>,
    /// `prefixItems` and `items`: an item gets one of them.
    item: Vec<usize>,
    /// Applied to every item.
    any_item: Vec<usize>,
    /// How many of `unevaluatedProperties`, `unevaluatedItems` it has.
    unevaluated: u64,
    /// What applying it counts for: 1, or more for a backtracking `pattern`.
    weight: u64,
    /// What matching each property's name counts for: its backtracking `patternProperties`.
    name_weight: u64,
}

/// Whether `pattern` needs fancy-regex's backtracking engine (a lookaround or a
/// backreference); without them it runs on the regex crate, in linear time.
fn backtracks(pattern: &str) -> bool {
    ["(?=", "(?!", "(?<=", "(?<!", "\\k<"]
        .iter()
        .any(|f| pattern.contains(f))
        || pattern
            .as_bytes()
            .windows(2)
            .any(|w| w[0] == b'\\' && w[1].is_ascii_digit() && w[1] != b'0')
}

/// A `patternProperties` pattern that backtracks, in a schema with `unevaluatedProperties`
/// anywhere: there jsonschema matches it without the backtracking limit, and panics past its
/// own. Such a schema is refused when added.
pub fn unbounded_name_pattern(schema: &Value) -> Option<String> {
    let (mut unevaluated, mut pattern) = (false, None);
    let mut stack = vec![schema];
    while let Some(v) = stack.pop() {
        match v {
            Value::Object(m) => {
                unevaluated |= m.contains_key("unevaluatedProperties");
                if let Some(Value::Object(p)) = m.get("patternProperties") {
                    if pattern.is_none() {
                        pattern = p.keys().find(|k| backtracks(k)).cloned();
                    }
                }
                stack.extend(m.values());
            }
            Value::Array(items) => stack.extend(items),
            _ => {}
        }
    }
    pattern.filter(|_| unevaluated)
}

/// Whether `schema` names a draft other than 2020-12 in `$schema`; the message says so.
pub fn check_draft(schema: &Value) -> Result<(), String> {
    match schema.get("$schema") {
        None => Ok(()),
        Some(Value::String(s)) if s.trim_end_matches('#') == DRAFT_2020_12 => Ok(()),
        Some(other) => Err(format!(
            "has \"$schema\": {other}: only JSON Schema draft 2020-12 is supported (\"$schema\": \
             \"{DRAFT_2020_12}\", or no $schema)"
        )),
    }
}

/// The bounds of `schema`, or why it has none: a draft other than 2020-12 anywhere, a
/// reference that does not resolve, a cycle of in-place applications (named node by node),
/// a schema too large to analyse.
pub fn analyse(schema: &Value) -> Result<Bounds, String> {
    check_draft(schema)?;
    let registry = Registry::try_new(BASE, Draft::Draft202012.create_resource(schema.clone()))
        .map_err(|e| format!("has a reference that cannot be resolved: {e}"))?;
    let resolver = registry
        .try_resolver(BASE)
        .map_err(|e| format!("cannot be resolved: {e}"))?;
    let root = resolver
        .lookup("#")
        .map_err(|e| format!("cannot be resolved: {e}"))?;
    let (root, resolver, _) = root.into_inner();
    let graph = Graph::build(root, resolver)?;
    let mut bounds = graph.bounds(true)?;
    bounds.per_value = graph
        .bounds(false)?
        .per_depth
        .into_iter()
        .max()
        .unwrap_or(0);
    Ok(bounds)
}

struct Graph {
    nodes: Vec<Node>,
    /// How many `$ref`s and `$dynamicRef`s point at each node.
    referenced: Vec<u32>,
}

struct Walk<'r> {
    ids: HashMap<*const Value, usize>,
    nodes: Vec<Node>,
    todo: Vec<(&'r Value, Resolver<'r>, usize)>,
    names: HashMap<String, u32>,
    dynamic_anchors: HashMap<String, Vec<usize>>,
    dynamic_refs: Vec<(usize, String)>,
    referenced: HashMap<usize, u32>,
}

impl<'r> Walk<'r> {
    fn intern(&mut self, v: &'r Value, r: Resolver<'r>, label: String) -> usize {
        let key = v as *const Value;
        if let Some(id) = self.ids.get(&key) {
            return *id;
        }
        let id = self.nodes.len();
        self.ids.insert(key, id);
        self.nodes.push(Node {
            label,
            weight: 1,
            ..Node::default()
        });
        self.todo.push((v, r, id));
        id
    }

    fn name(&mut self, n: &str) -> u32 {
        let next = self.names.len() as u32;
        *self.names.entry(n.to_string()).or_insert(next)
    }
}

fn pointer_segment(s: &str) -> String {
    s.replace('~', "~0").replace('/', "~1")
}

impl Graph {
    fn build<'r>(root: &'r Value, resolver: Resolver<'r>) -> Result<Graph, String> {
        let mut w = Walk {
            ids: HashMap::new(),
            nodes: Vec::new(),
            todo: Vec::new(),
            names: HashMap::new(),
            dynamic_anchors: HashMap::new(),
            dynamic_refs: Vec::new(),
            referenced: HashMap::new(),
        };
        w.intern(root, resolver, "#".into());
        while let Some((v, r, id)) = w.todo.pop() {
            let Value::Object(map) = v else {
                continue;
            };
            if w.nodes.len() as u64 > ANALYSIS_MAX / 100 {
                return Err("has too many subschemas to check".into());
            }
            let here = w.nodes[id].label.clone();
            let at = |k: &str| format!("{here}/{}", pointer_segment(k));
            let r = r
                .in_subresource(Draft::Draft202012.create_resource_ref(v))
                .map_err(|e| format!("has an $id that cannot be resolved at {here}: {e}"))?;
            if id != 0 {
                if let Some(s) = map.get("$schema") {
                    check_draft(&serde_json::json!({ "$schema": s }))
                        .map_err(|m| format!("{m} (at {here})"))?;
                }
            }
            if let Some(Value::String(a)) = map.get("$dynamicAnchor") {
                w.dynamic_anchors.entry(a.clone()).or_default().push(id);
            }
            let mut in_place: Vec<usize> = Vec::new();
            for kw in ["allOf", "anyOf", "oneOf"] {
                if let Some(Value::Array(items)) = map.get(kw) {
                    for (i, s) in items.iter().enumerate() {
                        in_place.push(w.intern(s, r.clone(), format!("{}/{i}", at(kw))));
                    }
                }
            }
            for kw in ["not", "if", "then", "else"] {
                if let Some(s) = map.get(kw) {
                    in_place.push(w.intern(s, r.clone(), at(kw)));
                }
            }
            for kw in ["dependentSchemas", "dependencies"] {
                if let Some(Value::Object(m)) = map.get(kw) {
                    for (k, s) in m {
                        if s.is_object() || s.is_boolean() {
                            let label = format!("{}/{}", at(kw), pointer_segment(k));
                            in_place.push(w.intern(s, r.clone(), label));
                        }
                    }
                }
            }
            for kw in ["$ref", "$dynamicRef"] {
                if let Some(Value::String(reference)) = map.get(kw) {
                    let resolved = r.lookup(reference).map_err(|e| {
                        format!("has a {kw} {reference:?} at {here} that cannot be resolved: {e}")
                    })?;
                    let (target, tr, _) = resolved.into_inner();
                    let label = if reference.starts_with('#') {
                        reference.clone()
                    } else {
                        at(kw)
                    };
                    let t = w.intern(target, tr, label);
                    *w.referenced.entry(t).or_default() += 1;
                    in_place.push(t);
                    if kw == "$dynamicRef" {
                        if let Some((_, name)) = reference.rsplit_once('#') {
                            if !name.is_empty() && !name.starts_with('/') {
                                w.dynamic_refs.push((id, name.to_string()));
                            }
                        }
                    }
                }
            }
            let mut properties = Vec::new();
            if let Some(Value::Object(m)) = map.get("properties") {
                for (k, s) in m {
                    let label = format!("{}/{}", at("properties"), pointer_segment(k));
                    let t = w.intern(s, r.clone(), label);
                    properties.push((w.name(k), t));
                }
            }
            let mut any_property = Vec::new();
            if let Some(Value::Object(m)) = map.get("patternProperties") {
                for (k, s) in m {
                    let label = format!("{}/{}", at("patternProperties"), pointer_segment(k));
                    any_property.push(w.intern(s, r.clone(), label));
                }
            }
            for kw in ["unevaluatedProperties", "propertyNames"] {
                if let Some(s) = map.get(kw) {
                    any_property.push(w.intern(s, r.clone(), at(kw)));
                }
            }
            let additional = map
                .get("additionalProperties")
                .map(|s| w.intern(s, r.clone(), at("additionalProperties")));
            let mut item = Vec::new();
            for kw in ["prefixItems", "items"] {
                match map.get(kw) {
                    Some(Value::Array(items)) => {
                        for (i, s) in items.iter().enumerate() {
                            item.push(w.intern(s, r.clone(), format!("{}/{i}", at(kw))));
                        }
                    }
                    Some(s) => item.push(w.intern(s, r.clone(), at(kw))),
                    None => {}
                }
            }
            let mut any_item = Vec::new();
            for kw in ["contains", "unevaluatedItems", "additionalItems"] {
                if let Some(s) = map.get(kw) {
                    any_item.push(w.intern(s, r.clone(), at(kw)));
                }
            }
            // Not applied unless referenced, but checked for their draft and anchors.
            for kw in ["$defs", "definitions"] {
                if let Some(Value::Object(m)) = map.get(kw) {
                    for (k, s) in m {
                        let label = format!("{}/{}", at(kw), pointer_segment(k));
                        w.intern(s, r.clone(), label);
                    }
                }
            }
            let node = &mut w.nodes[id];
            node.in_place = count(in_place);
            node.properties = properties;
            node.any_property = any_property;
            node.additional = additional;
            if let Some(Value::Object(m)) = map.get("patternProperties") {
                let fancy = m.keys().filter(|k| backtracks(k)).count() as u64;
                node.name_weight = fancy.saturating_mul(BACKTRACKING_PATTERN_WEIGHT);
            }
            node.weight = match map.get("pattern") {
                Some(Value::String(p)) if backtracks(p) => BACKTRACKING_PATTERN_WEIGHT,
                _ => 1,
            };
            node.item = item;
            node.any_item = any_item;
            node.unevaluated = ["unevaluatedProperties", "unevaluatedItems"]
                .iter()
                .filter(|k| map.contains_key(**k))
                .count() as u64;
        }
        // A $dynamicRef may land on any $dynamicAnchor of its name.
        for (id, name) in std::mem::take(&mut w.dynamic_refs) {
            let mut targets: Vec<usize> = w.dynamic_anchors.get(&name).cloned().unwrap_or_default();
            targets.retain(|t| !w.nodes[id].in_place.iter().any(|(c, _)| c == t));
            for t in &targets {
                *w.referenced.entry(*t).or_default() += 1;
            }
            w.nodes[id]
                .in_place
                .extend(targets.into_iter().map(|t| (t, 1)));
        }
        let mut referenced = vec![0u32; w.nodes.len()];
        for (t, n) in w.referenced {
            referenced[t] = n;
        }
        referenced[0] += 1;
        Ok(Graph {
            nodes: w.nodes,
            referenced,
        })
    }

    /// The nodes reachable from the root, children before parents in the in-place graph; a
    /// cycle of in-place edges is refused, named.
    fn order(&self) -> Result<Vec<usize>, String> {
        let n = self.nodes.len();
        let mut reachable = vec![false; n];
        let mut todo = vec![0usize];
        reachable[0] = true;
        while let Some(x) = todo.pop() {
            let node = &self.nodes[x];
            let next = node
                .in_place
                .iter()
                .map(|(c, _)| *c)
                .chain(node.properties.iter().map(|(_, c)| *c))
                .chain(node.any_property.iter().copied())
                .chain(node.additional)
                .chain(node.item.iter().copied())
                .chain(node.any_item.iter().copied());
            for c in next {
                if !reachable[c] {
                    reachable[c] = true;
                    todo.push(c);
                }
            }
        }
        // 0: unseen, 1: on the path, 2: done.
        let mut state = vec![0u8; n];
        let mut order = Vec::new();
        for start in (0..n).filter(|x| reachable[*x]) {
            if state[start] != 0 {
                continue;
            }
            let mut path: Vec<(usize, usize)> = vec![(start, 0)];
            state[start] = 1;
            while let Some((x, i)) = path.last().copied() {
                if let Some((c, _)) = self.nodes[x].in_place.get(i) {
                    path.last_mut().expect("not empty").1 += 1;
                    match state[*c] {
                        0 => {
                            state[*c] = 1;
                            path.push((*c, 0));
                        }
                        1 => {
                            let from = path.iter().position(|(p, _)| p == c).unwrap_or(0);
                            let mut names: Vec<&str> = path[from..]
                                .iter()
                                .map(|(p, _)| self.nodes[*p].label.as_str())
                                .collect();
                            names.push(self.nodes[*c].label.as_str());
                            return Err(format!(
                                "has a cycle that never descends into the data: {} (each \
                                 applies the next at the same place, so checking data would \
                                 never end)",
                                names.join(" -> ")
                            ));
                        }
                        _ => {}
                    }
                } else {
                    state[x] = 2;
                    order.push(x);
                    path.pop();
                }
            }
        }
        Ok(order)
    }

    /// The bounds, `weighted` by the cost of backtracking patterns or each application
    /// counted once.
    fn bounds(&self, weighted: bool) -> Result<Bounds, String> {
        let weight = |w: u64| if weighted { w } else { 1 };
        let order = self.order()?;
        let n = self.nodes.len();
        let mut steps = 0u64;
        let mut tick = |k: usize| -> Result<(), String> {
            steps = steps.saturating_add(k as u64 + 1);
            if steps > ANALYSIS_MAX {
                Err("is too complex to check its cost (simplify it)".into())
            } else {
                Ok(())
            }
        };
        // Depth 0: the node itself and everything in place, with unevaluated's rework.
        let mut r = vec![0u64; n];
        let mut m = vec![0u64; n];
        for &x in &order {
            let node = &self.nodes[x];
            let (mut sum, mut rework) = (weight(node.weight), 0u64);
            for (c, times) in &node.in_place {
                tick(0)?;
                sum = sum.saturating_add(r[*c].saturating_mul(*times));
                rework = rework.saturating_add(r[*c].saturating_add(m[*c]).saturating_mul(*times));
            }
            m[x] = rework;
            r[x] = sum.saturating_add(node.unevaluated.saturating_mul(rework));
        }
        let mut per_depth = vec![r[0]];
        // The longest chain of applications, each inside the last (jsonschema recurses once
        // per application at least): in place, then one level down at each descent.
        let mut chain = vec![0u64; n];
        for &x in &order {
            let inner = self.nodes[x].in_place.iter().map(|(c, _)| chain[*c]).max();
            chain[x] = 1 + inner.unwrap_or(0);
        }
        let mut longest = vec![chain[0]];
        let mut by_name: Vec<Names> = vec![Names::default(); n];
        let (mut other, mut items) = (vec![0u64; n], vec![0u64; n]);
        for k in 1..=DATA_DEPTH {
            let prev = std::mem::replace(&mut r, vec![0u64; n]);
            let prev_chain = std::mem::replace(&mut chain, vec![0u64; n]);
            for &x in &order {
                let node = &self.nodes[x];
                let down = node
                    .properties
                    .iter()
                    .map(|(_, t)| *t)
                    .chain(node.any_property.iter().copied())
                    .chain(node.additional)
                    .chain(node.item.iter().copied())
                    .chain(node.any_item.iter().copied())
                    .map(|t| prev_chain[t])
                    .filter(|c| *c > 0)
                    .max();
                let inner = node.in_place.iter().map(|(c, _)| chain[*c]).max();
                let deepest = down.into_iter().chain(inner).filter(|c| *c > 0).max();
                chain[x] = deepest.map_or(0, |c| c.saturating_add(1));
                let mut map: Vec<(u32, u64)> = node
                    .properties
                    .iter()
                    .map(|(p, t)| (*p, prev[*t]))
                    .collect();
                map.sort_unstable();
                let mut names = Names {
                    map,
                    default: node.additional.map_or(0, |t| prev[t]),
                };
                let names_matched = if k == 1 && weighted {
                    node.name_weight
                } else {
                    0
                };
                let mut o = node
                    .any_property
                    .iter()
                    .fold(names_matched, |a, t| a.saturating_add(prev[*t]));
                let mut a = node.item.iter().map(|t| prev[*t]).max().unwrap_or(0);
                a = node
                    .any_item
                    .iter()
                    .fold(a, |a, t| a.saturating_add(prev[*t]));
                let mut rework = names.most().saturating_add(o).max(a);
                for (c, times) in &node.in_place {
                    tick(by_name[*c].map.len())?;
                    names = names.plus(&by_name[*c], *times);
                    o = o.saturating_add(other[*c].saturating_mul(*times));
                    a = a.saturating_add(items[*c].saturating_mul(*times));
                    rework =
                        rework.saturating_add(r[*c].saturating_add(m[*c]).saturating_mul(*times));
                }
                let extra = node.unevaluated.saturating_mul(rework);
                m[x] = rework;
                other[x] = o.saturating_add(extra);
                items[x] = a.saturating_add(extra);
                let obj = names.most().saturating_add(other[x]);
                r[x] = obj.max(items[x]);
                by_name[x] = names;
            }
            per_depth.push(r[0]);
            longest.push(chain[0]);
            if r.iter().all(|v| *v == 0) {
                per_depth.resize(DATA_DEPTH + 1, 0);
                longest.resize(DATA_DEPTH + 1, 0);
                break;
            }
        }
        let reachable = order.len() as u64;
        let lazy = order.iter().any(|x| self.referenced[*x] >= 2);
        let per_value = per_depth.iter().copied().max().unwrap_or(0);
        Ok(Bounds {
            per_depth,
            per_value,
            longest,
            reachable,
            lazy,
        })
    }
}

/// What one property of an object gets, by its name: `map`'s value for a name it holds (sorted
/// by name), `default` for any other (from `additionalProperties`).
#[derive(Clone, Default)]
struct Names {
    map: Vec<(u32, u64)>,
    default: u64,
}

impl Names {
    /// The most any one property gets.
    fn most(&self) -> u64 {
        self.map
            .iter()
            .map(|(_, v)| *v)
            .max()
            .unwrap_or(0)
            .max(self.default)
    }

    /// This plus `times` × `b`, name by name.
    fn plus(&self, b: &Names, times: u64) -> Names {
        let (a, bm) = (&self.map, &b.map);
        let scaled = |v: u64| v.saturating_mul(times);
        let mut map = Vec::with_capacity(a.len() + bm.len());
        let (mut i, mut j) = (0, 0);
        loop {
            match (a.get(i), bm.get(j)) {
                (Some(x), Some(y)) if x.0 == y.0 => {
                    map.push((x.0, x.1.saturating_add(scaled(y.1))));
                    i += 1;
                    j += 1;
                }
                (Some(x), Some(y)) if x.0 < y.0 => {
                    map.push((x.0, x.1.saturating_add(scaled(b.default))));
                    i += 1;
                }
                (Some(x), None) => {
                    map.push((x.0, x.1.saturating_add(scaled(b.default))));
                    i += 1;
                }
                (_, Some(y)) => {
                    map.push((y.0, self.default.saturating_add(scaled(y.1))));
                    j += 1;
                }
                (None, None) => break,
            }
        }
        Names {
            map,
            default: self.default.saturating_add(scaled(b.default)),
        }
    }
}

/// The edges, each target with how often it appears.
fn count(targets: Vec<usize>) -> Vec<(usize, u64)> {
    let mut out: Vec<(usize, u64)> = Vec::new();
    for t in targets {
        match out.iter_mut().find(|(c, _)| *c == t) {
            Some((_, n)) => *n += 1,
            None => out.push((t, 1)),
        }
    }
    out
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use serde_json::json;

    /// 30 levels of `allOf: [{$ref: next}, {$ref: next}]`: 2^30 applications at one value.
    pub(crate) fn doubling(levels: usize) -> Value {
        let mut defs = serde_json::Map::new();
        for i in 0..levels {
            let next = format!("#/$defs/l{}", i + 1);
            defs.insert(
                format!("l{i}"),
                json!({"allOf": [{"$ref": next}, {"$ref": next}]}),
            );
        }
        defs.insert(format!("l{levels}"), json!({"type": "object"}));
        json!({"$defs": defs, "$ref": "#/$defs/l0"})
    }

    pub(crate) fn tree() -> Value {
        json!({
            "$defs": {"node": {
                "type": "object",
                "required": ["name"],
                "properties": {
                    "name": {"type": "string"},
                    "children": {"type": "array", "items": {"$ref": "#/$defs/node"}}
                }
            }},
            "$ref": "#/$defs/node"
        })
    }

    #[test]
    fn a_ref_cycle_at_the_same_place_is_refused_by_name() {
        let e = analyse(&json!({
            "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
            "$ref": "#/$defs/a"
        }))
        .unwrap_err();
        assert!(e.contains("never descends"), "{e}");
        assert!(
            e.contains("#/$defs/a -> #/$defs/b -> #/$defs/a")
                || e.contains("#/$defs/b -> #/$defs/a -> #/$defs/b"),
            "{e}"
        );
        for cyclic in [
            json!({"$ref": "#"}),
            json!({"allOf": [{"$ref": "#"}]}),
            json!({"not": {"$ref": "#"}}),
            json!({"if": {"type": "string"}, "else": {"$ref": "#"}}),
            json!({"dependentSchemas": {"x": {"$ref": "#"}}}),
            json!({"$defs": {"a": {"anyOf": [{"type": "string"}, {"$ref": "#/$defs/a"}]}},
                   "properties": {"x": {"$ref": "#/$defs/a"}}}),
            json!({"$dynamicAnchor": "m", "oneOf": [{"$dynamicRef": "#m"}]}),
            json!({"$id": "https://example.com/s", "$defs": {"a": {"$ref": "s#/$defs/a"}},
                   "$ref": "#/$defs/a"}),
            json!({"$defs": {"a": {"$anchor": "x", "allOf": [{"$ref": "#x"}]}},
                   "$ref": "#/$defs/a"}),
        ] {
            let e = analyse(&cyclic).unwrap_err();
            assert!(e.contains("never descends"), "{cyclic}: {e}");
        }
    }

    #[test]
    fn a_cycle_nothing_applies_is_harmless() {
        let b = analyse(&json!({
            "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
            "type": "object"
        }))
        .unwrap();
        assert_eq!(b.per_value(), 1);
    }

    #[test]
    fn fan_out_is_counted_per_value() {
        // The root, l0, then at each level two items and two applications of the next.
        assert_eq!(
            analyse(&doubling(3)).unwrap().per_value(),
            1 + 1 + 2 * (2 + 4 + 8)
        );
        let b = analyse(&doubling(30)).unwrap();
        assert!(b.per_value() > 1 << 30, "{b:?}");
        assert!(b.work(&json!({})) > WORK_BUDGET);
    }

    #[test]
    fn fan_out_compounding_level_by_level_is_counted() {
        // Twice the same schema for the items, at every level: 2^k at depth k.
        let s = json!({"allOf": [{"items": {"$ref": "#"}}, {"items": {"$ref": "#"}}]});
        let b = analyse(&s).unwrap();
        assert_eq!(b.per_depth[1], 2 * 4, "{b:?}");
        assert!(b.per_value() > MAX_PER_VALUE);
        let mut deep = json!(1);
        for _ in 0..12 {
            deep = json!([deep]);
        }
        assert!(b.work(&deep) > 4000);
    }

    #[test]
    fn recursion_that_descends_stays_small() {
        let b = analyse(&tree()).unwrap();
        assert!(b.per_value() <= 3, "{b:?}");
        // Any JSON value, recursively: an item is in an array, never in an object too.
        let json_value = json!({"$defs": {"v": {"anyOf": [
            {"type": ["string", "number", "boolean", "null"]},
            {"type": "array", "items": {"$ref": "#/$defs/v"}},
            {"type": "object", "additionalProperties": {"$ref": "#/$defs/v"}}
        ]}}, "$ref": "#/$defs/v"});
        assert!(analyse(&json_value).unwrap().per_value() <= 8);
        // A syntax tree: variants recurse through properties of different names.
        let ast = json!({"$defs": {"e": {"oneOf": [
            {"properties": {"left": {"$ref": "#/$defs/e"}, "right": {"$ref": "#/$defs/e"}}},
            {"properties": {"operand": {"$ref": "#/$defs/e"}}},
            {"properties": {"value": {"type": "number"}}}
        ]}}, "$ref": "#/$defs/e"});
        assert!(analyse(&ast).unwrap().per_value() <= 8);
        // A property is named or additional, never both.
        let map =
            json!({"properties": {"a": {"$ref": "#"}}, "additionalProperties": {"$ref": "#"}});
        assert!(analyse(&map).unwrap().per_value() <= 3);
        // But two subschemas in place apply theirs each.
        let both = json!({"allOf": [{"additionalProperties": {"$ref": "#"}},
                                    {"properties": {"a": {"$ref": "#"}}}]});
        assert!(analyse(&both).unwrap().per_value() > MAX_PER_VALUE);
    }

    #[test]
    fn variants_recursing_through_the_same_name_multiply() {
        // Both variants validate `children` of every node: 2^k at depth 2k.
        let s = json!({"$defs": {"n": {"oneOf": [
            {"required": ["a"], "properties": {"children": {"items": {"$ref": "#/$defs/n"}}}},
            {"required": ["b"], "properties": {"children": {"items": {"$ref": "#/$defs/n"}}}}
        ]}}, "$ref": "#/$defs/n"});
        assert!(analyse(&s).unwrap().per_value() > MAX_PER_VALUE);
    }

    #[test]
    fn unevaluated_counts_the_in_place_rework() {
        let plain = json!({"allOf": [{"properties": {"a": true}}]});
        let with = json!({"allOf": [{"properties": {"a": true}}], "unevaluatedProperties": false});
        let (p, w) = (analyse(&plain).unwrap(), analyse(&with).unwrap());
        assert!(w.per_depth[0] > p.per_depth[0], "{p:?} {w:?}");
        assert!(w.per_depth[1] > p.per_depth[1], "{p:?} {w:?}");
    }

    #[test]
    fn only_draft_2020_12_is_taken() {
        for other in [
            "http://json-schema.org/draft-07/schema#",
            "https://json-schema.org/draft/2019-09/schema",
            "http://json-schema.org/draft-04/schema#",
        ] {
            let e = analyse(&json!({"$schema": other})).unwrap_err();
            assert!(
                e.contains("only JSON Schema draft 2020-12 is supported"),
                "{e}"
            );
            assert!(e.contains(other), "{e}");
            let nested = json!({"$defs": {"x": {"$id": "x", "$schema": other}}});
            assert!(analyse(&nested).is_err());
        }
        for ok in [
            DRAFT_2020_12,
            "https://json-schema.org/draft/2020-12/schema#",
        ] {
            analyse(&json!({"$schema": ok})).unwrap();
        }
    }

    #[test]
    fn an_unresolvable_reference_is_refused() {
        assert!(analyse(&json!({"$ref": "#/$defs/missing"})).is_err());
        assert!(analyse(&json!({"$ref": "https://example.com/remote.json"})).is_err());
    }

    #[test]
    fn a_backtracking_pattern_counts_for_a_thousand() {
        assert!(backtracks("^(?=.*[A-Z])"));
        assert!(backtracks("^(a)\\1$"));
        assert!(!backtracks("^[a-z]+\\d{2}$"));
        let plain = analyse(&json!({"items": {"pattern": "^a+$"}})).unwrap();
        let fancy = analyse(&json!({"items": {"pattern": "^(?!x)a+$"}})).unwrap();
        let strings = json!(["a", "b", "c"]);
        assert_eq!(plain.work(&strings), 1 + 3);
        assert_eq!(fancy.work(&strings), 1 + 3 * BACKTRACKING_PATTERN_WEIGHT);
        assert_eq!(
            fancy.per_value(),
            plain.per_value(),
            "the limit counts applications"
        );
        let keys = analyse(&json!({"patternProperties": {"^(?!x)": true}})).unwrap();
        let object = json!({"a": 1, "b": 2});
        assert_eq!(
            keys.work(&object),
            1 + 2 * (1 + BACKTRACKING_PATTERN_WEIGHT)
        );
    }

    #[test]
    fn work_sums_the_bound_of_each_value_by_depth() {
        let b = Bounds {
            per_depth: vec![1, 2, 3],
            per_value: 3,
            longest: vec![1, 5, 2],
            reachable: 3,
            lazy: false,
        };
        assert_eq!(b.cost(&json!([])).chain, 1);
        assert_eq!(b.cost(&json!([[1]])).chain, 5);
        assert_eq!(b.work(&json!({"a": [1, 2], "b": 3})), 1 + 2 + 2 + 3 + 3);
        assert_eq!(b.work(&json!([[[1]]])), u64::MAX, "deeper than bounded");
    }
}
