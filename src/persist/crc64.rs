//! The CRC64 every DUMP payload and RDB file ends with: models crc64.c `crc64()` — the "Jones"
//! polynomial 0xad93d23594c935a9, reflected input and output, initial value 0, no final xor
//! (`crc64(0, "123456789", 9) == 0xe9c6d914c4b8d9ca`). Redis computes it eight bytes at a time
//! (crcspeed.c); one table byte at a time gives the same value.

/// The reflected polynomial.
const POLY: u64 = 0x95ac_9329_ac4b_c9b5;

const fn table() -> [u64; 256] {
    let mut t = [0u64; 256];
    let mut i = 0;
    while i < 256 {
        let mut c = i as u64;
        let mut k = 0;
        while k < 8 {
            c = if c & 1 == 1 { (c >> 1) ^ POLY } else { c >> 1 };
            k += 1;
        }
        t[i] = c;
        i += 1;
    }
    t
}

static TABLE: [u64; 256] = table();

/// `crc64(crc, s, l)`: continues `crc` over `data`.
pub fn crc64(mut crc: u64, data: &[u8]) -> u64 {
    for &b in data {
        crc = TABLE[((crc ^ b as u64) & 0xff) as usize] ^ (crc >> 8);
    }
    crc
}

#[cfg(test)]
mod tests {
    #[test]
    fn check_value() {
        assert_eq!(super::crc64(0, b"123456789"), 0xe9c6_d914_c4b8_d9ca);
        let whole = super::crc64(0, b"hello world");
        assert_eq!(super::crc64(super::crc64(0, b"hello "), b"world"), whole);
    }
}
