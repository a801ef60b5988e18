//! The lines that say which kernel runs: `profile`, `allocator`, `switch`, `slub_debug` and
//! `boot` (its configuration options and boot parameters).

use super::line::{single_num, Line};
use super::{Parser, PROFILES};
use crate::ast::{Allocator, SlubDebug};
use crate::error::{closest, ParseError};
use crate::lex::Tok;
use crate::limits::{MAX_MIN_OBJECTS, MAX_ORDER};

impl Parser {
    /// `profile NAME`: the kernel profile, one this build replays.
    pub(super) fn profile_line(&mut self, line: &mut Line) -> Result<(), ParseError> {
        let col = line.col();
        let name = line.word(
            "scenario.expected_profile",
            "a kernel profile such as linux-6.6",
        )?;
        if !PROFILES.contains(&name.as_str()) {
            return Err(ParseError::new(
                line.number,
                col,
                "scenario.profile",
                format!("unknown kernel profile '{name}'"),
            )
            .arg("profile", &name)
            .arg("known", PROFILES.join(", "))
            .hint(format!("known profiles: {}", PROFILES.join(", "))));
        }
        self.profile = Some(name);
        line.finish()
    }

    /// `allocator slub` or `allocator slab`.
    pub(super) fn allocator_line(&mut self, line: &mut Line) -> Result<(), ParseError> {
        let col = line.col();
        let word = line.word("scenario.expected_allocator", "slub or slab")?;
        self.allocator_at = Some((line.number, col));
        self.allocator = Some(match word.as_str() {
            "slub" => Allocator::Slub,
            "slab" => Allocator::Slab,
            other => {
                return Err(ParseError::new(
                    line.number,
                    col,
                    "scenario.allocator",
                    format!("unknown allocator '{other}'"),
                )
                .arg("allocator", other)
                .hint("use `allocator slub` or `allocator slab`"))
            }
        });
        line.finish()
    }

    /// `switch NAME [on|off]`: a kernel configuration option or boot switch.
    pub(super) fn switch_line(&mut self, line: &mut Line) -> Result<(), ParseError> {
        let col = line.col();
        let name = line.word("scenario.expected_switch", "a switch name")?;
        let on = match line.peek() {
            None => true,
            Some(Tok::Word(w)) if w == "on" => {
                line.pos += 1;
                true
            }
            Some(Tok::Word(w)) if w == "off" => {
                line.pos += 1;
                false
            }
            _ => return Err(line.err("scenario.expected_on_off", "expected on or off")),
        };
        let known = [
            "freelist_random",
            "freelist_hardened",
            "slab_nomerge",
            "slab_legacy_refill",
            "random_kmalloc_caches",
        ];
        match name.as_str() {
            "random_kmalloc_caches" => {
                self.require_version_2(line.number, col, "switch random_kmalloc_caches")?;
                self.switches.random_kmalloc_caches = on;
                self.random_kmalloc_line = on.then_some((line.number, col));
            }
            "freelist_random" => self.switches.freelist_random = on,
            "freelist_hardened" => self.switches.freelist_hardened = on,
            "slab_nomerge" => self.switches.slab_nomerge = on,
            "slab_legacy_refill" => self.switches.slab_legacy_refill = on,
            _ => {
                let message = format!("unknown switch '{name}'");
                let e = match closest(&name, &known) {
                    Some(k) => ParseError::new(
                        line.number,
                        col,
                        "scenario.unknown_switch_did_you_mean",
                        message,
                    )
                    .arg("switch", &name)
                    .arg("suggestion", k)
                    .hint(format!("did you mean {k}?")),
                    None => ParseError::new(line.number, col, "scenario.unknown_switch", message)
                        .arg("switch", &name)
                        .arg("known", known.join(", "))
                        .hint(format!("switches: {}", known.join(", "))),
                };
                return Err(e);
            }
        }
        line.finish()
    }

    /// `slub_debug LETTERS` (or `off`): the debug flags every cache gets.
    pub(super) fn slub_debug_line(&mut self, line: &mut Line) -> Result<(), ParseError> {
        let col = line.col();
        let letters = line.word(
            "scenario.expected_slub_debug",
            "slub_debug letters such as FZPU, or off",
        )?;
        let mut flags = SlubDebug::default();
        if letters != "off" {
            for c in letters.chars() {
                match c.to_ascii_uppercase() {
                    'F' => flags.consistency_checks = true,
                    'Z' => flags.red_zone = true,
                    'P' => flags.poison = true,
                    'U' => flags.store_user = true,
                    _ => {
                        return Err(ParseError::new(
                            line.number,
                            col,
                            "scenario.slub_debug",
                            format!("'{c}' is not a slub_debug letter Slabscope models"),
                        )
                        .arg("letter", c)
                        .hint("use F, Z, P and U"))
                    }
                }
            }
        }
        self.switches.slub_debug = flags;
        line.finish()
    }

    /// `boot KEY=N ...`: the slab allocators' boot parameters.
    pub(super) fn boot_line(&mut self, line: &mut Line) -> Result<(), ParseError> {
        for (key, col, value) in line.pairs()? {
            match key.as_str() {
                "slub_min_objects" => {
                    self.switches.slub_min_objects =
                        single_num(line, &key, col, &value, MAX_MIN_OBJECTS)? as u32
                }
                "slub_max_order" => {
                    self.switches.slub_max_order =
                        Some(single_num(line, &key, col, &value, MAX_ORDER)? as u32)
                }
                "slub_min_order" => {
                    self.switches.slub_min_order =
                        single_num(line, &key, col, &value, MAX_ORDER)? as u32
                }
                "slab_max_order" => {
                    self.switches.slab_max_order =
                        Some(single_num(line, &key, col, &value, MAX_ORDER)? as u32)
                }
                _ => {
                    return Err(ParseError::new(
                        line.number,
                        col,
                        "scenario.unknown_boot_setting",
                        format!("unknown boot parameter '{key}'"),
                    )
                    .arg("setting", &key)
                    .hint(
                        "boot takes slub_min_objects, slub_max_order, slub_min_order and slab_max_order",
                    ))
                }
            }
        }
        Ok(())
    }
}
