//! Call sites: the caller address (`_RET_IP_`) a scenario's `kmalloc` passes to
//! `kmalloc_type()`, which with `CONFIG_RANDOM_KMALLOC_CACHES` hashes it to pick one of 16
//! caches.
//!
//! Rules: a site is named (`kmalloc(64) at site_a`); a line without `at` is its own site,
//! named `line<N>` after its line number. A name always gives the same address, in any
//! scenario: a fake return address inside the kernel's text (`_text` at 0xffffffff81000000
//! without KASLR, 16 MiB of it), chosen by the name's FNV-1a hash. Two names may share an
//! address only by a hash collision; what matters is that the address is fixed, as a real
//! call site's is for one kernel build.

/// `_text` on x86_64 without KASLR (`__START_KERNEL_map` + 16 MiB).
const KERNEL_TEXT: u64 = 0xffff_ffff_8100_0000;
/// The span of text addresses a site may get.
const TEXT_SPAN: u64 = 16 << 20;

/// The name of the site of a kmalloc on `line` with `at` naming `site` (or not).
pub fn call_site_name(site: Option<&str>, line: u32) -> String {
    site.map_or_else(|| format!("line{line}"), str::to_string)
}

/// The caller address of the site named `name`.
pub fn call_site_address(name: &str) -> u64 {
    // FNV-1a, 64 bits.
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in name.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    KERNEL_TEXT + h % TEXT_SPAN
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_site_is_a_fixed_text_address() {
        let a = call_site_address("site_a");
        assert_ne!(a, call_site_address("site_b"));
        assert!((KERNEL_TEXT..KERNEL_TEXT + TEXT_SPAN).contains(&a));
        // FNV-1a of the empty string is its offset basis.
        assert_eq!(
            call_site_address(""),
            KERNEL_TEXT + 0xcbf2_9ce4_8422_2325 % TEXT_SPAN
        );
        assert_eq!(call_site_name(None, 12), "line12");
        assert_eq!(call_site_name(Some("site_a"), 12), "site_a");
    }
}
