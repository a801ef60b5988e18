//! Parse errors: where (line and column, both from 1), what, and a hint. Each also carries a
//! stable key and its arguments so the web app can word it in the reader's language; the
//! English wording here is what the CLI prints.

use serde::Serialize;
use std::fmt;

#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct ParseError {
    pub line: u32,
    pub column: u32,
    /// Stable identifier of the kind of mistake, e.g. `scenario.unknown_directive`.
    pub key: &'static str,
    /// Values the message mentions, by name.
    pub args: Vec<(&'static str, String)>,
    /// The English message.
    pub message: String,
    /// What to do about it, in English.
    pub hint: Option<String>,
}

impl ParseError {
    pub(super) fn new(line: u32, column: u32, key: &'static str, message: String) -> Self {
        ParseError {
            line,
            column,
            key,
            args: Vec::new(),
            message,
            hint: None,
        }
    }

    pub(super) fn arg(mut self, name: &'static str, value: impl ToString) -> Self {
        self.args.push((name, value.to_string()));
        self
    }

    /// The same error, placed at `line`, `column`.
    pub(super) fn at(mut self, line: u32, column: u32) -> Self {
        self.line = line;
        self.column = column;
        self
    }

    pub(super) fn hint(mut self, hint: impl Into<String>) -> Self {
        self.hint = Some(hint.into());
        self
    }
}

impl fmt::Display for ParseError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "line {}, column {}: {}",
            self.line, self.column, self.message
        )?;
        if let Some(hint) = &self.hint {
            write!(f, "\n  hint: {hint}")?;
        }
        Ok(())
    }
}

impl std::error::Error for ParseError {}

/// The known word closest to `word` (edit distance at most 2), for "did you mean" hints.
pub(super) fn closest<'a>(word: &str, known: &[&'a str]) -> Option<&'a str> {
    known
        .iter()
        .map(|k| (distance(word, k), *k))
        .filter(|(d, _)| *d <= 2)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

fn distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for j in 0..b.len() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != b[j]))
                .min(row[j] + 1)
                .min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}
