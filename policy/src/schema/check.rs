//! Checks a value against a compiled [`Node`], collecting every problem up to a bound.

use std::cmp::Ordering;

use serde_json::{Map, Number, Value};

use super::error::{ArgProblem, ArgsError, ProblemKind};
use super::node::{Additional, Bounds, Choices, Node, ObjectRules};
use super::number::compare;
use super::render::{Step, path_of, pointer_of, short_json, short_json_string};

/// Walks a value beside its schema. The walk follows the schema, so its depth is bounded by the schema's.
pub(crate) struct Checker<'a> {
    steps: Vec<Step<'a>>,
    problems: Vec<ArgProblem>,
    limit: usize,
    more: bool,
}

impl<'a> Checker<'a> {
    /// A checker that keeps at most `limit` problems (at least one).
    pub(crate) fn new(limit: usize) -> Self {
        Self { steps: Vec::new(), problems: Vec::new(), limit: limit.max(1), more: false }
    }

    /// The outcome: `Ok` when no problem was found.
    pub(crate) fn finish(self) -> Result<(), ArgsError> {
        if self.problems.is_empty() { Ok(()) } else { Err(ArgsError { problems: self.problems, more: self.more }) }
    }

    /// Whether the bound is reached and one more problem was seen: nothing more is worth checking.
    fn done(&self) -> bool {
        self.more
    }

    fn report(&mut self, kind: ProblemKind) {
        self.report_below(None, kind);
    }

    /// Reports a problem here whose pointer names `below`, a part of the value here (a property that should not be
    /// there), while its words name this place.
    fn report_below(&mut self, below: Option<Step<'a>>, kind: ProblemKind) {
        if self.problems.len() < self.limit {
            let path = path_of(&self.steps);
            let pointer = match below {
                Some(step) => {
                    self.steps.push(step);
                    let pointer = pointer_of(&self.steps);
                    self.steps.pop();
                    pointer
                }
                None => pointer_of(&self.steps),
            };
            self.problems.push(ArgProblem { path, pointer, kind });
        } else {
            self.more = true;
        }
    }

    fn report_at(&mut self, step: Step<'a>, kind: ProblemKind) {
        self.steps.push(step);
        self.report(kind);
        self.steps.pop();
    }

    fn check_at(&mut self, step: Step<'a>, node: &'a Node, value: &'a Value) {
        self.steps.push(step);
        self.check(node, value);
        self.steps.pop();
    }

    /// Checks `value` against `node`. A value outside `enum`/`const` or of the wrong type gets that one problem
    /// only: what else is wrong with it would not help.
    pub(crate) fn check(&mut self, node: &'a Node, value: &'a Value) {
        if node.refuses_all {
            return self.report(ProblemKind::NotAllowed);
        }
        for (choices, keyword) in [(&node.constant, "const"), (&node.enumeration, "enum")] {
            if let Some(choices) = choices
                && !choices.contains(value)
            {
                return self.report(wrong_value(choices, value, keyword));
            }
        }
        if let Some(types) = &node.types
            && !types.allows(value)
        {
            return self.report(ProblemKind::WrongType { expected: types.phrase.clone(), got: short_json(value) });
        }
        match value {
            Value::String(text) => self.check_string(node, text),
            Value::Number(number) if !node.bounds.is_empty() => self.check_bounds(&node.bounds, number),
            Value::Array(items) => self.check_array(node, items),
            Value::Object(properties) => {
                if let Some(rules) = &node.object {
                    self.check_object(rules, properties);
                }
            }
            _ => {}
        }
    }

    fn check_string(&mut self, node: &Node, text: &str) {
        self.check_length(node, text);
        if let Some(pattern) = &node.pattern
            && !pattern.matcher.is_match(text)
        {
            self.report(ProblemKind::NoMatch { pattern: short_json_string(&pattern.source) });
        }
    }

    fn check_length(&mut self, node: &Node, text: &str) {
        // A string has at most as many code points as bytes: most strings pass without being counted.
        let bytes = text.len() as u64;
        if node.min_length.is_none_or(|min| min == 0) && node.max_length.is_none_or(|max| bytes <= max) {
            return;
        }
        let length = text.chars().count() as u64;
        if let Some(min) = node.min_length.filter(|min| length < *min) {
            self.report(ProblemKind::TooShort { min, got: length });
        }
        if let Some(max) = node.max_length.filter(|max| length > *max) {
            self.report(ProblemKind::TooLong { max, got: length });
        }
    }

    fn check_bounds(&mut self, bounds: &Bounds, number: &Number) {
        let breaks = |bound: &Option<Number>, refused: &[Ordering]| {
            bound.as_ref().filter(|bound| refused.contains(&compare(number, bound))).cloned()
        };
        if let Some(bound) = breaks(&bounds.minimum, &[Ordering::Less]) {
            self.report(ProblemKind::TooSmall { bound, exclusive: false, got: number.clone() });
        }
        if let Some(bound) = breaks(&bounds.exclusive_minimum, &[Ordering::Less, Ordering::Equal]) {
            self.report(ProblemKind::TooSmall { bound, exclusive: true, got: number.clone() });
        }
        if let Some(bound) = breaks(&bounds.maximum, &[Ordering::Greater]) {
            self.report(ProblemKind::TooLarge { bound, exclusive: false, got: number.clone() });
        }
        if let Some(bound) = breaks(&bounds.exclusive_maximum, &[Ordering::Greater, Ordering::Equal]) {
            self.report(ProblemKind::TooLarge { bound, exclusive: true, got: number.clone() });
        }
    }

    fn check_array(&mut self, node: &'a Node, items: &'a [Value]) {
        let count = items.len() as u64;
        if let Some(min) = node.min_items.filter(|min| count < *min) {
            self.report(ProblemKind::TooFewItems { min, got: count });
        }
        if let Some(max) = node.max_items.filter(|max| count > *max) {
            self.report(ProblemKind::TooManyItems { max, got: count });
        }
        if let Some(item_node) = &node.items {
            for (index, item) in items.iter().enumerate() {
                if self.done() {
                    return;
                }
                self.check_at(Step::Index(index), item_node, item);
            }
        }
    }

    /// Required properties first (in the schema's order), then every property of the value in the map's order,
    /// which is by name.
    fn check_object(&mut self, rules: &'a ObjectRules, properties: &'a Map<String, Value>) {
        for name in &rules.required {
            if !properties.contains_key(name) {
                self.report_at(Step::Key(name), ProblemKind::Missing);
            }
        }
        for (name, value) in properties {
            if self.done() {
                return;
            }
            let node = match (rules.property(name), &rules.additional) {
                (Some(node), _) => node,
                (None, Additional::Checked(node)) => node,
                (None, Additional::Allowed) => continue,
                (None, Additional::Refused) => {
                    let allowed = rules.allowed_names.clone();
                    self.report_below(
                        Some(Step::Key(name)),
                        ProblemKind::Unexpected { name: short_json_string(name), allowed },
                    );
                    continue;
                }
            };
            self.check_at(Step::Key(name), node, value);
        }
    }
}

fn wrong_value(choices: &Choices, value: &Value, keyword: &'static str) -> ProblemKind {
    ProblemKind::WrongValue { expected: choices.phrase.clone(), got: short_json(value), keyword }
}
