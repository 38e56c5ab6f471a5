//! One group's assigned partitions bucketed by member, and the exact length of their JSON.
//!
//! The flat order numbers every partition of the group: topic after topic in the order of
//! `topic_starts`, partition ids ascending within a topic. `owner[x]` is the member number
//! (an index into `member_keys`) that gets flat partition `x`, or -1 for nobody.
//!
//! O(N + M + T): count each member's partitions, then bucket the flat positions by member
//! (a stable counting sort, so each member's partitions stay in flat order), counting the
//! runs of one topic and the digits on the way: that gives the JSON's exact length, so it
//! is written once, into a buffer of that length (`write.rs`).

use crate::input::{count_per_member, topic_bounds, Form, Invalid};
use crate::numerals::Numerals;

/// One assigned partition: (topic number, partition id).
pub type Slot = (u32, u32);

/// One group's assignment, ready to be written as JSON.
pub struct Plan<'k> {
    /// Every assigned partition, member by member, each member's in flat order.
    pub slots: Vec<Slot>,
    /// Member `m`'s slots are `slots[bounds[m]..bounds[m + 1]]`.
    pub bounds: Vec<usize>,
    pub numerals: Numerals,
    pub topic_keys: &'k [&'k [u8]],
    pub member_keys: &'k [&'k [u8]],
    pub form: Form,
    /// The exact length of the JSON.
    pub json_len: usize,
}

/// A member's bucket while it is filled: where its next slot goes, the topic of its last.
#[derive(Clone, Copy)]
struct Filling {
    next: usize,
    topic: u32,
}

impl<'k> Plan<'k> {
    /// The plan of the assignment `owner` describes, members in `member_keys` order.
    ///
    /// `topic_keys[t]` and `member_keys[m]` are written verbatim: they are the caller's
    /// JSON text for topic `t` and member `m`.
    pub fn new(
        owner: &[i32],
        topic_starts: &[i64],
        topic_keys: &'k [&'k [u8]],
        member_keys: &'k [&'k [u8]],
        form: Form,
    ) -> Result<Plan<'k>, Invalid> {
        if topic_starts.len() != topic_keys.len() + 1 {
            return Err(Invalid(format!(
                "topic_starts has {} entries but topic_keys names {} topics: it needs one \
                 more entry than there are topics",
                topic_starts.len(),
                topic_keys.len()
            )));
        }
        let starts = topic_bounds(topic_starts, owner.len(), "owner")?;
        let counts = count_per_member(owner, member_keys.len())?;
        let largest = starts.windows(2).map(|t| t[1] - t[0]).max().unwrap_or(0);
        let numerals = Numerals::up_to(largest);

        let mut bounds = Vec::with_capacity(counts.len() + 1);
        bounds.push(0);
        let mut filling = Vec::with_capacity(counts.len());
        let mut total = 0usize;
        for &count in &counts {
            filling.push(Filling {
                next: total,
                topic: u32::MAX,
            });
            total += count;
            bounds.push(total);
        }
        // Bytes of a run besides its topic key and partitions: `:[` `]`, or `[` `,[` `]]`.
        let run_frame = match form {
            Form::Topics => 3,
            Form::Indexed => 5,
        };
        let mut slots: Vec<Slot> = vec![(0, 0); total];
        let (mut runs, mut run_bytes, mut digits) = (0usize, 0usize, 0usize);
        for (t, range) in starts.windows(2).enumerate() {
            let topic = t as u32;
            let key_len = topic_keys[t].len();
            for (p, &m) in owner[range[0]..range[1]].iter().enumerate() {
                if m < 0 {
                    continue;
                }
                let bucket = &mut filling[m as usize];
                slots[bucket.next] = (topic, p as u32);
                bucket.next += 1;
                if bucket.topic != topic {
                    bucket.topic = topic;
                    runs += 1;
                    run_bytes += key_len + run_frame;
                }
                digits += numerals.len(p as u32);
            }
        }
        let members_with_runs = counts.iter().filter(|&&c| c > 0).count();
        let members = member_keys.len();
        let json_len = 2                                              // { }
            + member_keys.iter().map(|k| k.len() + 3).sum::<usize>() // key : { }
            + members.saturating_sub(1)                              // , between members
            + run_bytes
            + (runs - members_with_runs)                             // , between a member's runs
            + digits
            + (total - runs); // , between a run's partitions
        Ok(Plan {
            slots,
            bounds,
            numerals,
            topic_keys,
            member_keys,
            form,
            json_len,
        })
    }
}
