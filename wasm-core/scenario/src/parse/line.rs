//! The cursor over one line's tokens, and the numbers a line may hold: each with the keys of
//! its two errors (missing, and larger than allowed), so the web app can word either.

use crate::error::ParseError;
use crate::lex::{Tok, Token};

/// A number an operation or directive needs: its English name and the keys of its two errors
/// (missing, and larger than allowed).
pub(super) struct NumberSlot {
    what: &'static str,
    missing: &'static str,
    too_big: &'static str,
}

pub(super) const REPEAT_COUNT: NumberSlot = NumberSlot {
    what: "the repeat count",
    missing: "scenario.expected_repeat_count",
    too_big: "scenario.repeat_count_too_big",
};
pub(super) const INDEX: NumberSlot = NumberSlot {
    what: "an index",
    missing: "scenario.expected_index",
    too_big: "scenario.index_too_big",
};
pub(super) const RANGE_END: NumberSlot = NumberSlot {
    what: "the end of the range",
    missing: "scenario.expected_range_end",
    too_big: "scenario.range_end_too_big",
};
pub(super) const NODE: NumberSlot = NumberSlot {
    what: "a node",
    missing: "scenario.expected_node",
    too_big: "scenario.node_too_big",
};
pub(super) const SIZE: NumberSlot = NumberSlot {
    what: "the size",
    missing: "scenario.expected_size",
    too_big: "scenario.size_too_big",
};
pub(super) const COUNT: NumberSlot = NumberSlot {
    what: "the count",
    missing: "scenario.expected_count",
    too_big: "scenario.count_too_big",
};
pub(super) const ORDER: NumberSlot = NumberSlot {
    what: "the order",
    missing: "scenario.expected_order",
    too_big: "scenario.order_too_big",
};

pub(super) struct Line<'a> {
    pub(super) toks: &'a [Token],
    pub(super) pos: usize,
    pub(super) number: u32,
    pub(super) end_col: u32,
}

impl Line<'_> {
    pub(super) fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.tok)
    }
    /// The token `ahead` places after the current one.
    pub(super) fn tok_at(&self, ahead: usize) -> Option<&Tok> {
        self.toks.get(self.pos + ahead).map(|t| &t.tok)
    }
    pub(super) fn col(&self) -> u32 {
        self.toks.get(self.pos).map_or(self.end_col, |t| t.col)
    }
    pub(super) fn err(&self, key: &'static str, message: impl Into<String>) -> ParseError {
        ParseError::new(self.number, self.col(), key, message.into())
    }
    pub(super) fn err_at(
        &self,
        col: u32,
        key: &'static str,
        message: impl Into<String>,
    ) -> ParseError {
        ParseError::new(self.number, col, key, message.into())
    }
    pub(super) fn next(&mut self) -> Option<Tok> {
        let t = self.toks.get(self.pos).map(|t| t.tok.clone());
        self.pos += 1;
        t
    }
    pub(super) fn at_end(&self) -> bool {
        self.pos >= self.toks.len()
    }
    pub(super) fn eat_sym(&mut self, c: char) -> bool {
        if self.peek() == Some(&Tok::Sym(c)) {
            self.pos += 1;
            true
        } else {
            false
        }
    }
    pub(super) fn expect_sym(&mut self, c: char) -> Result<(), ParseError> {
        if self.eat_sym(c) {
            Ok(())
        } else {
            Err(self
                .err("scenario.expected_symbol", format!("expected '{c}' here"))
                .arg("symbol", c))
        }
    }
    /// A word; if there is none, the error `key` says "expected {what} here" (each place that
    /// wants a word has its own key, so the web app can word `what` in any language).
    pub(super) fn word(&mut self, key: &'static str, what: &str) -> Result<String, ParseError> {
        match self.peek() {
            Some(Tok::Word(w)) => {
                let w = w.clone();
                self.pos += 1;
                Ok(w)
            }
            _ => Err(self.err(key, format!("expected {what} here"))),
        }
    }
    /// A number, any size; if there is none, the error `key` says "expected {what} (a number)
    /// here".
    pub(super) fn number(&mut self, key: &'static str, what: &str) -> Result<u64, ParseError> {
        match self.peek() {
            Some(Tok::Num(n)) => {
                let n = *n;
                self.pos += 1;
                Ok(n)
            }
            _ => Err(self.err(key, format!("expected {what} (a number) here"))),
        }
    }
    /// A number up to `max`: `slot.missing` when there is none, `slot.too_big` when it is
    /// larger.
    pub(super) fn bounded(&mut self, slot: &NumberSlot, max: u64) -> Result<u64, ParseError> {
        let col = self.col();
        let n = self.number(slot.missing, slot.what)?;
        if n > max {
            return Err(ParseError::new(
                self.number,
                col,
                slot.too_big,
                format!("{} {n} is larger than {max}", slot.what),
            )
            .arg("value", n)
            .arg("max", max));
        }
        Ok(n)
    }
    pub(super) fn finish(&self) -> Result<(), ParseError> {
        if self.at_end() {
            Ok(())
        } else {
            Err(self
                .err(
                    "scenario.trailing",
                    "unexpected text at the end of the line",
                )
                .hint("remove it, or start a comment with #"))
        }
    }
    /// `key=value` pairs until the end of the line.
    /// Each value keeps its column, so a value can be refused where it stands.
    pub(super) fn pairs(&mut self) -> Result<Vec<(String, u32, Vec<Token>)>, ParseError> {
        let mut out = Vec::new();
        while !self.at_end() {
            let col = self.col();
            let key = self.word("scenario.expected_setting", "a setting such as cpus=4")?;
            if !self.eat_sym('=') {
                out.push((key, col, Vec::new()));
                continue;
            }
            let mut value = Vec::new();
            loop {
                let value_col = self.col();
                match self.next() {
                    Some(tok @ (Tok::Num(_) | Tok::Word(_))) => value.push(Token {
                        tok,
                        col: value_col,
                    }),
                    _ => {
                        self.pos -= 1;
                        return Err(self
                            .err(
                                "scenario.expected_value",
                                format!("expected a value for {key}"),
                            )
                            .arg("setting", key));
                    }
                }
                if !self.eat_sym(',') {
                    break;
                }
            }
            out.push((key, col, value));
        }
        Ok(out)
    }
}

pub(super) fn single_num(
    line: &Line,
    key: &str,
    col: u32,
    value: &[Token],
    max: u64,
) -> Result<u64, ParseError> {
    let value: Vec<&Tok> = value.iter().map(|t| &t.tok).collect();
    match value[..] {
        [Tok::Num(n)] if *n <= max => Ok(*n),
        [Tok::Num(n)] => Err(ParseError::new(
            line.number,
            col,
            "scenario.too_big",
            format!("{key}={n} is larger than {max}"),
        )
        .arg("setting", key)
        .arg("value", n)
        .arg("max", max)),
        _ => Err(ParseError::new(
            line.number,
            col,
            "scenario.expected_one_number",
            format!("{key} takes one number"),
        )
        .arg("setting", key)),
    }
}
