//! Splits one scenario line into tokens, each with its column.

use super::error::ParseError;

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) enum Tok {
    /// Names and keywords: letters, digits, `_`, `-`, and `.` not followed by another `.`.
    Word(String),
    /// A number, decimal or `0x` hex, with an optional `K`/`M`/`G` multiplier.
    Num(u64),
    /// One of `= ( ) , [ ] : |`.
    Sym(char),
    /// `..` in a slice.
    DotDot,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Token {
    pub tok: Tok,
    /// 1-based column of the first character.
    pub col: u32,
}

/// Tokens of `text` (a line without its comment). Columns count characters from 1.
pub(super) fn lex(text: &str, line: u32) -> Result<Vec<Token>, ParseError> {
    let chars: Vec<char> = text.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let col = i as u32 + 1;
        if c.is_whitespace() {
            i += 1;
        } else if c.is_ascii_digit() {
            let (value, end) = number(&chars, i, line, col)?;
            i = end;
            out.push(Token {
                tok: Tok::Num(value),
                col,
            });
        } else if c.is_alphabetic() || c == '_' {
            let start = i;
            while i < chars.len() {
                let ch = chars[i];
                let dot_ok = ch == '.' && chars.get(i + 1) != Some(&'.');
                if ch.is_alphanumeric() || ch == '_' || ch == '-' || dot_ok {
                    i += 1;
                } else {
                    break;
                }
            }
            out.push(Token {
                tok: Tok::Word(chars[start..i].iter().collect()),
                col,
            });
        } else if c == '.' && chars.get(i + 1) == Some(&'.') {
            out.push(Token {
                tok: Tok::DotDot,
                col,
            });
            i += 2;
        } else if "=(),[]:|".contains(c) {
            out.push(Token {
                tok: Tok::Sym(c),
                col,
            });
            i += 1;
        } else {
            return Err(ParseError::new(
                line,
                col,
                "scenario.bad_character",
                format!("unexpected character '{c}'"),
            )
            .arg("character", c));
        }
    }
    Ok(out)
}

/// The number that starts at `chars[start]` (decimal or `0x` hex, with an optional `K`/`M`/`G`
/// multiplier) and the index after it; `col` is its column, for errors.
fn number(chars: &[char], start: usize, line: u32, col: u32) -> Result<(u64, usize), ParseError> {
    let (radix, digits_from) =
        if chars[start] == '0' && chars.get(start + 1).is_some_and(|n| *n == 'x' || *n == 'X') {
            (16, start + 2)
        } else {
            (10, start)
        };
    let mut i = digits_from;
    while i < chars.len() && chars[i].is_digit(radix) {
        i += 1;
    }
    let digits: String = chars[digits_from..i].iter().collect();
    let mut value = u64::from_str_radix(&digits, radix).map_err(|_| {
        let text: String = chars[start..i].iter().collect();
        ParseError::new(
            line,
            col,
            "scenario.number_overflow",
            format!("'{text}' is not a number that fits in 64 bits"),
        )
        .arg("text", text)
    })?;
    if let Some(shift) = chars.get(i).and_then(|s| match s {
        'K' | 'k' => Some(10),
        'M' | 'm' => Some(20),
        'G' | 'g' => Some(30),
        _ => None,
    }) {
        if !chars
            .get(i + 1)
            .is_some_and(|n| n.is_alphanumeric() || *n == '_')
        {
            value = value
                .checked_shl(shift)
                .filter(|v| v >> shift == value)
                .ok_or_else(|| {
                    ParseError::new(
                        line,
                        col,
                        "scenario.number_too_large",
                        "the number is too large".to_string(),
                    )
                })?;
            i += 1;
        }
    }
    if chars
        .get(i)
        .is_some_and(|n| n.is_alphanumeric() || *n == '_')
    {
        let word: String = chars[start..]
            .iter()
            .take_while(|c| !c.is_whitespace())
            .collect();
        return Err(ParseError::new(
            line,
            col,
            "scenario.bad_number",
            format!("'{word}' is not a number"),
        )
        .arg("text", word)
        .hint("write numbers as 64, 0x40, 16K or 4M"));
    }
    Ok((value, i))
}
