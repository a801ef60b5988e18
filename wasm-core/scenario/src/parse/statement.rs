//! Format 2's lines that run no kernel code: list lines (`l = [a[0], b[0]]`,
//! `l = interleave(a, b)`, `l = reverse(t)`, `l[] = a`, and `a = t[3]`, which names one
//! object) and `print`, and the list forms a `for` loop may walk (`for x in reverse(t):`).
//!
//! Rules: these forms are recognised in a format 1 file too, parsed (so a wrong name is still
//! reported as such), and then refused with `scenario.needs_version`; nothing here changes what
//! a format 1 line that parsed before means. A list line or a `print` runs once where it
//! stands, so `repeat` and `for` in front of one are refused by name.

use super::{Line, Parser, OPS};
use crate::ast::{ListExpr, PrintFile, Ref, Statement, StatementLine, Target};
use crate::error::ParseError;
use crate::lex::Tok;

/// Functions that build a list (not kernel calls).
const LIST_FUNCTIONS: &[&str] = &["reverse", "interleave"];

/// `[…]`, `reverse(…)` or `interleave(…)` at the current token.
fn built_list_ahead(line: &Line) -> bool {
    match line.peek() {
        Some(Tok::Sym('[')) => true,
        Some(Tok::Word(w)) => {
            LIST_FUNCTIONS.contains(&w.as_str()) && line.tok_at(1) == Some(&Tok::Sym('('))
        }
        _ => false,
    }
}

/// How a list form is named in `scenario.needs_version`.
fn form(expr: &ListExpr) -> String {
    match expr {
        ListExpr::Items { .. } => "[…]".to_string(),
        ListExpr::Reverse { .. } => "reverse(…)".to_string(),
        ListExpr::Interleave { .. } => "interleave(…)".to_string(),
        ListExpr::Ref { of } => match of {
            Ref::Name { name } => name.clone(),
            Ref::Index { name, index } => format!("{name}[{index}]"),
            Ref::Slice { name, start, end } => format!("{name}[{start}..{end}]"),
        },
    }
}

impl Parser {
    /// Whether the line (from its start) is a list line: `NAME =` or `NAME[] =`, then a built
    /// list, or an earlier result's name that no call follows (`l = t`, `l[] = a`, `l = t[0..4]`).
    /// Anything else with a target stays an operation line, with that line's errors.
    pub(super) fn list_line_ahead(&self, line: &Line) -> bool {
        let Some(Tok::Word(_)) = line.peek() else {
            return false;
        };
        let rhs = match (line.tok_at(1), line.tok_at(2), line.tok_at(3)) {
            (Some(Tok::Sym('=')), _, _) => 2,
            (Some(Tok::Sym('[')), Some(Tok::Sym(']')), Some(Tok::Sym('='))) => 4,
            _ => return false,
        };
        let ahead = Line {
            toks: line.toks,
            pos: line.pos + rhs,
            number: line.number,
            end_col: line.end_col,
        };
        self.list_rhs_ahead(&ahead, true)
    }

    /// Whether what follows a target (`line` stands after `=`) is a list line's right-hand
    /// side: a built list, or an earlier result's name that no call follows. With
    /// `unknown_names`, a name not seen yet counts too when nothing or an index follows it (so
    /// its own error can say it is unknown).
    fn list_rhs_ahead(&self, line: &Line, unknown_names: bool) -> bool {
        if built_list_ahead(line) {
            return true;
        }
        match (line.peek(), line.tok_at(1)) {
            (Some(Tok::Word(w)), next) => {
                let known = self.names.contains(w) || self.lists.contains(w);
                !OPS.contains(&w.as_str())
                    && next != Some(&Tok::Sym('('))
                    && (known || (unknown_names && matches!(next, None | Some(Tok::Sym('[')))))
            }
            _ => false,
        }
    }

    /// `l = LIST`, `l[] = …`, or `a = t[3]`.
    pub(super) fn list_line(&mut self, line: &mut Line) -> Result<(), ParseError> {
        let name = line.word(
            "scenario.expected_result_name",
            "a name given to an earlier result",
        )?;
        let append = line.eat_sym('[');
        if append {
            line.expect_sym(']')?;
        }
        line.expect_sym('=')?;
        let col = line.col();
        // `a = t[3]` and `a = b` (b one object) name one object; any other form is a list.
        let list = self.list_expr(line, true)?;
        line.finish()?;
        if let (false, ListExpr::Ref { of }) = (append, &list) {
            let one = match of {
                Ref::Index { .. } => true,
                Ref::Name { name } => !self.lists.contains(name),
                Ref::Slice { .. } => false,
            };
            if one {
                self.require_version_2(line.number, col, &format!("{name} = {}", form(&list)))?;
                self.names.insert(name.clone());
                self.statements.push(StatementLine {
                    line: line.number,
                    after_ops: self.ops.len(),
                    statement: Statement::Name {
                        name,
                        of: of.clone(),
                    },
                });
                return Ok(());
            }
        }
        let what = match &list {
            ListExpr::Ref { .. } if append => format!("{name}[] = {}", form(&list)),
            ListExpr::Ref { .. } => format!("{name} = {}", form(&list)),
            built => form(built),
        };
        self.require_version_2(line.number, col, &what)?;
        self.lists.insert(name.clone());
        let target = if append {
            Target::Append(name)
        } else {
            Target::Name(name)
        };
        self.statements.push(StatementLine {
            line: line.number,
            after_ops: self.ops.len(),
            statement: Statement::List { target, list },
        });
        Ok(())
    }

    /// `print slabinfo`, `print buddyinfo`, `print sysfs CACHE`.
    pub(super) fn print_line(&mut self, line: &mut Line) -> Result<(), ParseError> {
        let print_col = line.col();
        line.pos += 1;
        let col = line.col();
        let file = match line.peek().cloned() {
            Some(Tok::Word(w)) if w == "slabinfo" => {
                line.pos += 1;
                PrintFile::Slabinfo
            }
            Some(Tok::Word(w)) if w == "buddyinfo" => {
                line.pos += 1;
                PrintFile::Buddyinfo
            }
            Some(Tok::Word(w)) if w == "sysfs" => {
                line.pos += 1;
                PrintFile::Sysfs {
                    cache: self.cache_ref(line)?,
                }
            }
            Some(Tok::Word(w)) => {
                return Err(ParseError::new(
                    line.number,
                    col,
                    "scenario.unknown_print_file",
                    format!("print does not show '{w}'"),
                )
                .arg("file", &w)
                .hint("print slabinfo, print buddyinfo or print sysfs CACHE"))
            }
            _ => {
                return Err(line
                    .err(
                        "scenario.expected_print_file",
                        "expected the file to print: slabinfo, buddyinfo or sysfs CACHE",
                    )
                    .hint("print slabinfo, print buddyinfo or print sysfs CACHE"))
            }
        };
        line.finish()?;
        self.require_version_2(line.number, print_col, "print")?;
        self.statements.push(StatementLine {
            line: line.number,
            after_ops: self.ops.len(),
            statement: Statement::Print { file },
        });
        Ok(())
    }

    /// The list after `for x in`: a list name in both formats, or (format 2) a slice,
    /// `reverse(…)`, `interleave(…)` or `[…]`.
    pub(super) fn loop_list(&mut self, line: &mut Line) -> Result<ListExpr, ParseError> {
        let col = line.col();
        let plain = !built_list_ahead(line) && line.tok_at(1) != Some(&Tok::Sym('['));
        if plain {
            // Format 1's loop: a list by name.
            let list = line.word("scenario.expected_list_name", "a list name")?;
            if !self.lists.contains(&list) {
                return Err(ParseError::new(
                    line.number,
                    col,
                    "scenario.unknown_list",
                    format!("'{list}' is not a list"),
                )
                .arg("list", &list)
                .hint("lists are made with `name[] = ...` or a bulk allocation"));
            }
            return Ok(ListExpr::Ref {
                of: Ref::Name { name: list },
            });
        }
        let list = self.list_expr(line, false)?;
        self.require_version_2(line.number, col, &form(&list))?;
        Ok(list)
    }

    /// A list form; with `one`, also a single object (after `l[] =`).
    fn list_expr(&self, line: &mut Line, one: bool) -> Result<ListExpr, ParseError> {
        if line.eat_sym('[') {
            let mut items = Vec::new();
            if !line.eat_sym(']') {
                loop {
                    items.push(self.any_ref(line)?);
                    if !line.eat_sym(',') {
                        break;
                    }
                }
                line.expect_sym(']')?;
            }
            return Ok(ListExpr::Items { items });
        }
        if built_list_ahead(line) {
            let reverse = line.peek() == Some(&Tok::Word("reverse".into()));
            line.pos += 2;
            let list = if reverse {
                ListExpr::Reverse {
                    of: self.obj_ref(line, true)?,
                }
            } else {
                let mut lists = vec![self.obj_ref(line, true)?];
                while line.eat_sym(',') {
                    lists.push(self.obj_ref(line, true)?);
                }
                ListExpr::Interleave { lists }
            };
            line.expect_sym(')')?;
            return Ok(list);
        }
        let of = if one {
            self.any_ref(line)?
        } else {
            self.obj_ref(line, true)?
        };
        Ok(ListExpr::Ref { of })
    }

    /// An object or a list, whichever the name is (a list, when it is both).
    fn any_ref(&self, line: &mut Line) -> Result<Ref, ParseError> {
        let is_list = matches!(line.peek(), Some(Tok::Word(w)) if self.lists.contains(w));
        self.obj_ref(line, is_list)
    }

    /// Refuses, by name, a list line or a `print` behind `repeat` or `for` (both formats):
    /// they run once, where they stand.
    pub(super) fn statement_after_prefix(
        &self,
        line: &Line,
        target: bool,
    ) -> Result<(), ParseError> {
        let prefixed = matches!(line.toks.first().map(|t| &t.tok),
            Some(Tok::Word(w)) if w == "repeat" || w == "for");
        if !prefixed {
            return Ok(());
        }
        let list = target && self.list_rhs_ahead(line, false);
        if list {
            return Err(ParseError::new(
                line.number,
                1,
                "scenario.list_prefix",
                "repeat and for run operations; a list line runs once, where it stands".into(),
            )
            .hint("build the list in one line, e.g. `l = reverse(t)` or `l = interleave(a, b)`"));
        }
        let print = !target
            && line.peek() == Some(&Tok::Word("print".into()))
            && line.tok_at(1) != Some(&Tok::Sym('('));
        if print {
            return Err(ParseError::new(
                line.number,
                1,
                "scenario.print_prefix",
                "print runs once, where it stands; repeat and for run operations".into(),
            )
            .hint("write `print …` on a line of its own"));
        }
        Ok(())
    }

    /// Format 2's forms in a format 1 file: refused, naming the first line that allows them
    /// (`what` is the form as written, e.g. `print`, `reverse(…)`, `GFP flags`, `at SITE`,
    /// `kfree_rcu(…)` or `flags=account`). Any later addition to the language that an older
    /// build would misread calls it the same way.
    pub(super) fn require_version_2(
        &self,
        line: u32,
        col: u32,
        what: &str,
    ) -> Result<(), ParseError> {
        self.require_version(line, col, what, 2)
    }

    /// Refuses `what` in a file of a format older than `version`.
    pub(super) fn require_version(
        &self,
        line: u32,
        col: u32,
        what: &str,
        version: u32,
    ) -> Result<(), ParseError> {
        if self.version >= version {
            return Ok(());
        }
        let first_line = format!("{} {version}", super::MAGIC);
        Err(ParseError::new(
            line,
            col,
            "scenario.needs_version",
            format!(
                "`{what}` needs scenario format {version}, and this file says format {}",
                self.version
            ),
        )
        .arg("what", what)
        .arg("first_line", &first_line)
        .arg("version", version)
        .arg("file_version", self.version)
        .hint(format!(
            "change the first line to `{first_line}`; every format {} line means the same in format {version}",
            self.version
        )))
    }
}
