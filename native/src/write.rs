//! The plan's JSON, written once into a buffer of its exact length.

use crate::input::Form;
use crate::plan::Plan;

/// A write position in the output buffer.
struct Cursor<'o> {
    out: &'o mut [u8],
    at: usize,
}

impl Cursor<'_> {
    #[inline]
    fn put(&mut self, bytes: &[u8]) {
        self.out[self.at..self.at + bytes.len()].copy_from_slice(bytes);
        self.at += bytes.len();
    }

    #[inline]
    fn byte(&mut self, byte: u8) {
        self.out[self.at] = byte;
        self.at += 1;
    }

    /// A partition id: its 8-byte table entry stored whole where it fits (one store, the
    /// padding overwritten by what follows), then the cursor moved past its digits.
    #[inline]
    fn partition(&mut self, plan: &Plan<'_>, partition: u32) {
        match plan.numerals.entry(partition) {
            Some(entry) if self.at + 8 <= self.out.len() => {
                self.out[self.at..self.at + 8].copy_from_slice(entry);
                self.at += entry[7] as usize;
            }
            Some(entry) => self.put(&entry[..entry[7] as usize]),
            None => self.put(itoa::Buffer::new().format(partition).as_bytes()),
        }
    }
}

impl Plan<'_> {
    /// The JSON into `out`, which must be exactly `json_len` bytes long: `{member: ...}` for
    /// every member in order, each member's slots as runs of one topic.
    pub fn write_into(&self, out: &mut [u8]) {
        assert_eq!(
            out.len(),
            self.json_len,
            "the output must be json_len bytes long"
        );
        let mut cursor = Cursor { out, at: 0 };
        let (open, close) = match self.form {
            Form::Topics => (b'{', b'}'),
            Form::Indexed => (b'[', b']'),
        };
        cursor.byte(b'{');
        for (m, key) in self.member_keys.iter().enumerate() {
            if m > 0 {
                cursor.byte(b',');
            }
            cursor.put(key);
            cursor.byte(b':');
            cursor.byte(open);
            let mine = &self.slots[self.bounds[m]..self.bounds[m + 1]];
            let mut at = 0;
            while at < mine.len() {
                let topic = mine[at].0;
                if at > 0 {
                    cursor.byte(b',');
                }
                let topic_key = self.topic_keys[topic as usize];
                match self.form {
                    Form::Topics => {
                        cursor.put(topic_key);
                        cursor.put(b":[");
                    }
                    Form::Indexed => {
                        cursor.byte(b'[');
                        cursor.put(topic_key);
                        cursor.put(b",[");
                    }
                }
                cursor.partition(self, mine[at].1);
                at += 1;
                while at < mine.len() && mine[at].0 == topic {
                    cursor.byte(b',');
                    cursor.partition(self, mine[at].1);
                    at += 1;
                }
                match self.form {
                    Form::Topics => cursor.byte(b']'),
                    Form::Indexed => cursor.put(b"]]"),
                }
            }
            cursor.byte(close);
        }
        cursor.byte(b'}');
        assert_eq!(
            cursor.at,
            cursor.out.len(),
            "the JSON's length was computed wrong"
        );
    }
}
