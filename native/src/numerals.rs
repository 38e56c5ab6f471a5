//! The decimal text of partition ids, from a table made once per answer.

/// The text of every partition id below the largest topic's partition count (up to 7
/// digits); a longer id is formatted when written.
pub struct Numerals {
    /// Entry `p`: its digits, then 0s; the last byte is the number of digits.
    texts: Vec<[u8; 8]>,
}

impl Numerals {
    const TABLE_MAX: usize = 10_000_000;

    /// The table for partition ids `0..count`.
    pub fn up_to(count: usize) -> Numerals {
        let mut digits = itoa::Buffer::new();
        let texts = (0..count.min(Self::TABLE_MAX))
            .map(|p| {
                let text = digits.format(p).as_bytes();
                let mut entry = [0u8; 8];
                entry[..text.len()].copy_from_slice(text);
                entry[7] = text.len() as u8;
                entry
            })
            .collect();
        Numerals { texts }
    }

    /// How many digits `partition` has.
    #[inline]
    pub fn len(&self, partition: u32) -> usize {
        match self.texts.get(partition as usize) {
            Some(entry) => entry[7] as usize,
            None => itoa::Buffer::new().format(partition).len(),
        }
    }

    /// `partition`'s table entry (8 bytes, its digits first), if it has one.
    #[inline]
    pub fn entry(&self, partition: u32) -> Option<&[u8; 8]> {
        self.texts.get(partition as usize)
    }
}
