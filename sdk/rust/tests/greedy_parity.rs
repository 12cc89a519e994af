//! `policies::greedy` against the Python `greedy_move` on positions from real games.
//!
//! tests/languages/test_rust.py writes the cases and names the file in
//! `SPITE_GREEDY_CASES`: one line per position, `<RuleSet hex> <Observation hex>
//! <Python's choice>`, the messages in wire form (hex keeps this test free of
//! dependencies). Without the variable there is nothing to compare, and the test says so.

use std::collections::HashMap;
use std::sync::Arc;

use prost::Message;
use spite::proto as pb;
use spite::{Observation, RuleSet, policies};

fn unhex(text: &str) -> Vec<u8> {
    assert!(text.len().is_multiple_of(2), "odd-length hex");
    (0..text.len()).step_by(2).map(|i| u8::from_str_radix(&text[i..i + 2], 16).expect("not hex")).collect()
}

#[test]
fn greedy_matches_python() {
    let Ok(path) = std::env::var("SPITE_GREEDY_CASES") else {
        println!("SKIPPED: SPITE_GREEDY_CASES is not set (tests/languages/test_rust.py sets it)");
        return;
    };
    let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"));
    let mut rule_sets: HashMap<&str, Arc<RuleSet>> = HashMap::new();
    let (mut count, mut mismatches) = (0, Vec::new());
    for line in text.lines().filter(|l| !l.trim().is_empty()) {
        let fields: Vec<&str> = line.split_whitespace().collect();
        let [rules_hex, observation_hex, python] = fields[..] else { panic!("bad case line: {line:?}") };
        let rules = rule_sets
            .entry(rules_hex)
            .or_insert_with(|| Arc::new(RuleSet::from(&pb::RuleSet::decode(unhex(rules_hex).as_slice()).unwrap())));
        let wire = pb::Observation::decode(unhex(observation_hex).as_slice()).unwrap();
        let obs = Observation::from_proto(&wire, Arc::clone(rules)).unwrap();
        count += 1;
        let chosen = policies::greedy(&obs).to_string();
        if chosen != python {
            let legal: Vec<String> = obs.legal_moves.iter().map(ToString::to_string).collect();
            mismatches.push(format!(
                "{}: greedy {chosen}, Python greedy_move {python}; legal moves {}",
                rules.name,
                legal.join(" ")
            ));
        }
    }
    assert!(count > 0, "no cases in {path}");
    assert!(
        mismatches.is_empty(),
        "{} of {count} choices differ, e.g.:\n{}",
        mismatches.len(),
        mismatches[..mismatches.len().min(5)].join("\n")
    );
    println!("{count} positions, {} rule sets: same choices", rule_sets.len());
}
