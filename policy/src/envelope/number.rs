//! A JSON number's digits to the `f64` nearest to them (ties to even), as `JSON.parse` reads them, so that the
//! argument check judges a number as the tool's JavaScript will see it.
//!
//! Why a reader of our own: serde_json's exact reader (its `float_roundtrip` feature) was 10.1 KB of the gzipped
//! download, core's `str::parse::<f64>` would be 13.4 KB (its table of powers; both measured 2026-12-06), and
//! serde_json's default reader may land one unit in the last place away. This one is the exact fast path (a
//! mantissa of at most 15 digits times a power of ten up to 10^22: one rounding) and, for the rest, the simple
//! decimal conversion (the digits kept as a decimal of at most 800 digits, shifted by powers of two until its
//! binary exponent is known, then rounded once), a few hundred bytes. Natively it is tested against core's reader
//! (the property tests below).

/// Digits kept: more than the 767 significant digits of the longest exact decimal of an `f64`, so that rounding
/// sees every digit that matters (the rest only sets `truncated`).
const MAX_DIGITS: usize = 800;
/// The powers of ten that are exact as `f64`.
const EXACT_POWERS: [f64; 23] = [
    1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20,
    1e21, 1e22,
];
/// How far to shift to bring a decimal point of `n` digits toward 0 (2^SHIFTS[n] < 10^n).
const SHIFTS: [u32; 9] = [1, 3, 6, 9, 13, 16, 19, 23, 26];
/// The largest shift in one step: a digit shifted left by it, plus a carry, stays within a `u64`.
const MAX_SHIFT: u32 = 60;
const MANTISSA_BITS: u32 = 52;
const EXPONENT_BIAS: i32 = -1023;

/// The value of the JSON number literal `literal` (`-?digits(.digits)?([eE][+-]?digits)?`, already checked), or
/// `None` when it is beyond the range of `f64`.
pub(crate) fn read_f64(literal: &str) -> Option<f64> {
    let decimal = Decimal::of(literal);
    let negative = literal.starts_with('-');
    let magnitude = match decimal.exact_fast() {
        Some(magnitude) => magnitude,
        None => decimal.into_f64()?,
    };
    Some(if negative { -magnitude } else { magnitude })
}

/// A non-negative number as `0.d1 d2 d3 … × 10^point`, with no leading and no trailing zero digit.
struct Decimal {
    digits: Vec<u8>,
    point: i32,
    /// Nonzero digits were dropped beyond [`MAX_DIGITS`]: the value is a little more than the digits say.
    truncated: bool,
}

impl Decimal {
    fn of(literal: &str) -> Decimal {
        let mut decimal = Decimal { digits: Vec::new(), point: 0, truncated: false };
        let mut point: i64 = 0;
        let mut in_fraction = false;
        let mut exponent: i64 = 0;
        let mut bytes = literal.bytes();
        for byte in bytes.by_ref() {
            match byte {
                b'0'..=b'9' => {
                    let digit = byte - b'0';
                    if decimal.digits.is_empty() && digit == 0 {
                        // A leading zero: after the point it moves the point, before it is nothing.
                        point -= i64::from(in_fraction);
                        continue;
                    }
                    if !in_fraction {
                        point += 1;
                    }
                    decimal.push(digit);
                }
                b'.' => in_fraction = true,
                b'e' | b'E' => break,
                _ => {}
            }
        }
        let mut exponent_negative = false;
        for byte in bytes {
            match byte {
                b'-' => exponent_negative = true,
                b'0'..=b'9' => exponent = (exponent * 10 + i64::from(byte - b'0')).min(1_000_000),
                _ => {}
            }
        }
        point += if exponent_negative { -exponent } else { exponent };
        decimal.point = point.clamp(-1_000_000, 1_000_000) as i32;
        decimal.trim();
        decimal
    }

    fn push(&mut self, digit: u8) {
        if self.digits.len() < MAX_DIGITS {
            self.digits.push(digit);
        } else if digit != 0 {
            self.truncated = true;
        }
    }

    fn trim(&mut self) {
        while self.digits.last() == Some(&0) {
            self.digits.pop();
        }
        if self.digits.is_empty() {
            self.point = 0;
        }
    }

    /// A mantissa of at most 15 digits times an exact power of ten: one correctly rounded operation.
    fn exact_fast(&self) -> Option<f64> {
        if self.digits.len() > 15 || self.truncated {
            return None;
        }
        let mantissa = self.digits.iter().fold(0u64, |m, &d| m * 10 + u64::from(d)) as f64;
        let exponent = i64::from(self.point) - self.digits.len() as i64;
        let power = EXACT_POWERS.get(usize::try_from(exponent.unsigned_abs()).ok()?)?;
        Some(if exponent >= 0 { mantissa * power } else { mantissa / power })
    }

    /// The simple decimal conversion: scale by powers of two into [1/2, 1), then take 53 bits, rounded once.
    fn into_f64(mut self) -> Option<f64> {
        if self.digits.is_empty() || self.point < -330 {
            return Some(0.0);
        }
        if self.point > 310 {
            return None;
        }
        let mut exponent: i32 = 0;
        while self.point > 0 {
            let shift = SHIFTS.get(self.point as usize).copied().unwrap_or(27);
            self.shift_right(shift);
            exponent += shift as i32;
        }
        while self.point < 0 || (self.point == 0 && self.digits.first().is_some_and(|&d| d < 5)) {
            let shift = SHIFTS.get(self.point.unsigned_abs() as usize).copied().unwrap_or(27);
            self.shift_left(shift);
            exponent -= shift as i32;
        }
        // From [1/2, 1) to the [1, 2) of the binary format.
        exponent -= 1;
        if exponent < EXPONENT_BIAS + 1 {
            let shift = (EXPONENT_BIAS + 1 - exponent) as u32;
            self.shift_right(shift);
            exponent += shift as i32;
        }
        if exponent - EXPONENT_BIAS >= 0x7ff {
            return None;
        }
        self.shift_left(MANTISSA_BITS + 1);
        let mut mantissa = self.rounded_integer();
        if mantissa == 2 << MANTISSA_BITS {
            mantissa >>= 1;
            exponent += 1;
            if exponent - EXPONENT_BIAS >= 0x7ff {
                return None;
            }
        }
        if mantissa & (1 << MANTISSA_BITS) == 0 {
            // Subnormal.
            exponent = EXPONENT_BIAS;
        }
        let bits =
            (mantissa & ((1 << MANTISSA_BITS) - 1)) | (((exponent - EXPONENT_BIAS) as u64 & 0x7ff) << MANTISSA_BITS);
        Some(f64::from_bits(bits))
    }

    /// Multiplies by 2^shift.
    fn shift_left(&mut self, mut shift: u32) {
        while shift > 0 && !self.digits.is_empty() {
            let step = shift.min(MAX_SHIFT);
            shift -= step;
            let mut product = Vec::with_capacity(self.digits.len() + 20);
            let mut carry: u64 = 0;
            for &digit in self.digits.iter().rev() {
                let n = (u64::from(digit) << step) + carry;
                product.push((n % 10) as u8);
                carry = n / 10;
            }
            while carry > 0 {
                product.push((carry % 10) as u8);
                carry /= 10;
            }
            self.point += (product.len() - self.digits.len()) as i32;
            self.digits.clear();
            for digit in product.into_iter().rev() {
                self.push(digit);
            }
            self.trim();
        }
    }

    /// Divides by 2^shift.
    fn shift_right(&mut self, mut shift: u32) {
        while shift > 0 && !self.digits.is_empty() {
            let step = shift.min(MAX_SHIFT);
            shift -= step;
            let mask = (1u64 << step) - 1;
            let mut read = 0;
            let mut n: u64 = 0;
            // Enough leading digits for a first quotient digit.
            while n >> step == 0 {
                n = n * 10 + self.digits.get(read).map_or(0, |&d| u64::from(d));
                read += 1;
            }
            self.point -= read as i32 - 1;
            let mut quotient = Vec::with_capacity(self.digits.len() + 20);
            for at in read..self.digits.len() {
                quotient.push((n >> step) as u8);
                n = (n & mask) * 10 + u64::from(self.digits[at]);
            }
            while n > 0 {
                let digit = (n >> step) as u8;
                if quotient.len() < MAX_DIGITS {
                    quotient.push(digit);
                } else if digit > 0 {
                    self.truncated = true;
                }
                n = (n & mask) * 10;
            }
            self.digits = quotient;
            self.trim();
        }
    }

    /// The integer part, rounded to nearest, ties to even (a truncated tail is above the tie).
    fn rounded_integer(&self) -> u64 {
        if self.point > 20 {
            return u64::MAX;
        }
        if self.point < 0 {
            return 0;
        }
        let point = self.point.max(0) as usize;
        let mut n: u64 = 0;
        for at in 0..point {
            n = n * 10 + self.digits.get(at).map_or(0, |&d| u64::from(d));
        }
        let round_up = match self.digits.get(point) {
            None => false,
            Some(5) if point + 1 == self.digits.len() => {
                self.truncated || point.checked_sub(1).is_some_and(|last| self.digits[last] % 2 == 1)
            }
            Some(&digit) => digit >= 5,
        };
        n + u64::from(round_up)
    }
}

#[cfg(test)]
mod tests {
    #[cfg(target_arch = "wasm32")]
    use wasm_bindgen_test::wasm_bindgen_test as test;

    use super::read_f64;

    #[test]
    fn numbers_read_as_javascript_reads_them() {
        let cases: [(&str, f64); 16] = [
            ("0", 0.0),
            ("-0", -0.0),
            ("1.5", 1.5),
            ("0.1", 0.1),
            ("0.30000000000000004", 0.1 + 0.2),
            ("1e21", 1e21),
            ("1E-7", 1e-7),
            ("123456789012345678901234567890", 1.2345678901234568e29),
            ("1.7976931348623157e308", f64::MAX),
            ("2.2250738585072014e-308", f64::MIN_POSITIVE),
            ("5e-324", 5e-324),
            ("2e-324", 0.0),
            ("3e-324", 5e-324),
            ("9007199254740993", 9007199254740992.0),
            ("9007199254740995", 9007199254740996.0),
            ("0.000000000000000000000000000001e30", 1.0),
        ];
        for (text, expected) in cases {
            let read = read_f64(text).unwrap_or(f64::NAN);
            assert_eq!(read.to_bits(), expected.to_bits(), "{text}: {read:e}, expected {expected:e}");
        }
        assert_eq!(read_f64("1.8e308"), None);
        assert_eq!(read_f64("1e400"), None);
        assert_eq!(read_f64("-1e-400").map(f64::to_bits), Some((-0.0f64).to_bits()));
    }

    /// Against core's reader, which is correctly rounded: any `f64` written in its shortest form (as
    /// `JSON.stringify` writes it) or with all 17 digits, and any digits with any exponent, short or long.
    #[cfg(not(target_arch = "wasm32"))]
    mod against_core {
        use proptest::prelude::*;

        use super::read_f64;

        fn same(text: &str) -> Result<(), TestCaseError> {
            let expected = text.parse::<f64>().ok().filter(|f| f.is_finite());
            prop_assert_eq!(read_f64(text).map(f64::to_bits), expected.map(f64::to_bits), "{}", text);
            Ok(())
        }

        proptest! {
            #![proptest_config(ProptestConfig { cases: 5_000, ..ProptestConfig::default() })]

            #[test]
            fn every_double_reads_back(bits in any::<u64>()) {
                let f = f64::from_bits(bits);
                prop_assume!(f.is_finite());
                same(&format!("{f:e}"))?;
                same(&format!("{f:.16e}"))?;
                same(&format!("{f:.25e}"))?;
            }

            #[test]
            fn any_digits_read_as_core_reads_them(
                negative in any::<bool>(),
                int in "(0|[1-9][0-9]{0,40})",
                fraction in proptest::option::of("[0-9]{1,40}"),
                exponent in proptest::option::of(-400i32..400),
            ) {
                let mut text = String::from(if negative { "-" } else { "" });
                text.push_str(&int);
                if let Some(fraction) = fraction {
                    text.push('.');
                    text.push_str(&fraction);
                }
                if let Some(exponent) = exponent {
                    text.push_str(&format!("e{exponent}"));
                }
                same(&text)?;
            }

            #[test]
            fn halfway_cases_round_to_even(bits in any::<u64>(), long in 0usize..900) {
                // The decimal exactly between two neighbouring doubles, and just above and below it.
                let f = f64::from_bits(bits >> 1);
                prop_assume!(f.is_finite() && f > 0.0 && f.next_up().is_finite());
                let halfway = halfway_text(f);
                same(&halfway)?;
                let mantissa_end = halfway.find('e').unwrap_or(halfway.len());
                let (digits, exponent) = halfway.split_at(mantissa_end);
                same(&format!("{digits}{}1{exponent}", "0".repeat(long)))?;
            }
        }

        /// The exact decimal of the midpoint of `f` and the next double up, in scientific form.
        fn halfway_text(f: f64) -> String {
            // f = m × 2^e exactly; the midpoint is (2m + 1) × 2^(e - 1).
            let bits = f.to_bits();
            let (raw_exponent, fraction) = ((bits >> 52) as i32, bits & ((1 << 52) - 1));
            let (m, e) =
                if raw_exponent == 0 { (fraction, -1074) } else { (fraction | (1 << 52), raw_exponent - 1075) };
            let (numerator, e) = (2 * u128::from(m) + 1, e - 1);
            // numerator × 2^e as a decimal: multiply by 5^-e when e < 0 (then divide by 10^-e), else by 2^e.
            let mut digits = numerator.to_string().into_bytes();
            let mut exponent10: i64 = 0;
            if e >= 0 {
                for _ in 0..e {
                    multiply(&mut digits, 2);
                }
            } else {
                for _ in 0..(-e) {
                    multiply(&mut digits, 5);
                }
                exponent10 = i64::from(e);
            }
            let text = String::from_utf8(digits).unwrap_or_default();
            format!("{}.{}e{}", &text[..1], &text[1..], exponent10 + text.len() as i64 - 1)
        }

        fn multiply(digits: &mut Vec<u8>, by: u32) {
            let mut carry = 0;
            for digit in digits.iter_mut().rev() {
                let n = u32::from(*digit - b'0') * by + carry;
                *digit = b'0' + (n % 10) as u8;
                carry = n / 10;
            }
            while carry > 0 {
                digits.insert(0, b'0' + (carry % 10) as u8);
                carry /= 10;
            }
        }
    }
}
