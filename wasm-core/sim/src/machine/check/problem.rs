//! `Problem`: one finding of the checker (an invariant that does not hold, or a piece of known
//! damage), as a stable key, the values it names, and its English wording.
//!
//! Rules:
//! - Every finding is made by `problem!`, which gives the key, the English wording and the
//!   named values in one place: the wording (`slabscope run --check`, the test suite) and the
//!   values the web app words it from can never disagree.
//! - Keys are `check.<name>` for a violated invariant and `damage.<name>` for known damage
//!   (`machine::damage`); the web app has a text for each in English and Korean
//!   (`web/i18n/*.later.json`, checked against this source by `web/i18n/problems.test.ts`).
//! - Values are text as the English wording shows them: addresses and page frame numbers in
//!   hex (`hex`), numbers in decimal, cache names as they are, kernel states as the simulator's
//!   `Debug` prints them.

use serde::Serialize;
use std::fmt;

/// One finding of the checker.
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
#[cfg_attr(feature = "ts-export", derive(ts_rs::TS), ts(export))]
pub struct Problem {
    /// A stable key: `check.<name>` or `damage.<name>`.
    pub key: &'static str,
    /// The values the wording names, by name.
    pub args: Vec<(&'static str, String)>,
    /// The English wording.
    pub message: String,
}

impl Problem {
    /// Whether this is known damage a bad operation did, rather than a violated invariant.
    pub fn is_damage(&self) -> bool {
        self.key.starts_with("damage.")
    }
}

impl fmt::Display for Problem {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.message)
    }
}

impl From<Problem> for String {
    fn from(p: Problem) -> String {
        p.message
    }
}

/// The English wordings of `problems`, in order.
pub(crate) fn messages(problems: Vec<Problem>) -> Vec<String> {
    problems.into_iter().map(String::from).collect()
}

/// `0x…`: an address or page frame number as the wordings show it.
pub(crate) fn hex(value: impl fmt::LowerHex) -> String {
    format!("{value:#x}")
}

/// `problem!("check.key", "wording with {name}", name = value, ...)`: a `Problem` whose
/// message is the wording with the values filled in (each value is evaluated once and shown
/// with `Display`) and whose arguments are the same values as text.
macro_rules! problem {
    ($key:literal, $wording:literal $(, $name:ident = $value:expr)* $(,)?) => {{
        // Every value first, then the names: a value may use a variable a name shadows.
        let ($($name,)*) = ($($value,)*);
        $crate::machine::check::Problem {
            key: $key,
            args: vec![$((stringify!($name), ($name).to_string())),*],
            message: format!($wording),
        }
    }};
}
pub(crate) use problem;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_problem_has_its_key_its_values_and_its_wording() {
        let pfn = crate::ids::Pfn(0x2a);
        let p = problem!(
            "check.example",
            "slab {pfn}: {free} free",
            pfn = hex(pfn),
            free = 3
        );
        assert_eq!(p.key, "check.example");
        assert_eq!(
            p.args,
            vec![("pfn", "0x2a".to_string()), ("free", "3".to_string())]
        );
        assert_eq!(p.to_string(), "slab 0x2a: 3 free");
        assert!(!p.is_damage());
    }
}
