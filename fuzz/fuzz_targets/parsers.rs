//! Key names, durations, `--size`, colours and text modes (`console2svg::fuzzing::parsers`).
#![no_main]

use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| console2svg::fuzzing::parsers(data));
