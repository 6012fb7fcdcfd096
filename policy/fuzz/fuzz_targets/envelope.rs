#![no_main]
// (being written)
libfuzzer_sys::fuzz_target!(|_data: &[u8]| {});
