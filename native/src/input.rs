//! What the caller hands in: the answer form, and the checks of the owner array and the
//! topic starts, each failure a message that says what is wrong.

use std::fmt;

/// The two wire forms of an answer's `assignment`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Form {
    /// `{member: {topic: [partition, ...], ...}, ...}`.
    Topics,
    /// `{member: [[topic_index, [partition, ...]], ...], ...}`.
    Indexed,
}

impl Form {
    /// The form named `name` (`"topics"` or `"indexed"`), if it is one.
    pub fn named(name: &str) -> Option<Form> {
        match name {
            "topics" => Some(Form::Topics),
            "indexed" => Some(Form::Indexed),
            _ => None,
        }
    }
}

/// Input that does not describe one group's assignment; the message says what is wrong.
#[derive(Debug, PartialEq, Eq)]
pub struct Invalid(pub String);

impl fmt::Display for Invalid {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// The topics' first flat positions and their end: `topic_starts` checked to start at 0,
/// ascend, and end at `partitions`, the length of the array named `of` that they index.
pub fn topic_bounds(starts: &[i64], partitions: usize, of: &str) -> Result<Vec<usize>, Invalid> {
    if partitions > u32::MAX as usize {
        return Err(Invalid(format!(
            "{of} has {partitions} partitions, more than {} (the most one group can hold)",
            u32::MAX
        )));
    }
    match starts.first() {
        None => {
            return Err(Invalid(
                "topic_starts is empty: it must start at 0".to_owned(),
            ))
        }
        Some(&first) if first != 0 => {
            return Err(Invalid(format!("topic_starts[0] is {first}, not 0")));
        }
        Some(_) => {}
    }
    if let Some(t) = (1..starts.len()).find(|&t| starts[t] < starts[t - 1]) {
        return Err(Invalid(format!(
            "topic_starts is not ascending: topic_starts[{t}] = {} is below topic_starts[{}] = {}",
            starts[t],
            t - 1,
            starts[t - 1]
        )));
    }
    let last = starts[starts.len() - 1];
    if usize::try_from(last).ok() != Some(partitions) {
        return Err(Invalid(format!(
            "topic_starts ends at {last} but {of} has {partitions} partitions: they must match"
        )));
    }
    // Ascending from 0 to `partitions`: every entry fits a usize.
    Ok(starts.iter().map(|&s| s as usize).collect())
}

/// How many partitions each of `members` gets; any owner but a member number or -1 is refused.
pub fn count_per_member(owner: &[i32], members: usize) -> Result<Vec<usize>, Invalid> {
    let mut counts = vec![0usize; members];
    for (x, &m) in owner.iter().enumerate() {
        if m == -1 {
            continue;
        }
        match usize::try_from(m).ok().and_then(|m| counts.get_mut(m)) {
            Some(count) => *count += 1,
            None => {
                return Err(Invalid(format!(
                    "owner[{x}] is {m}: not a member number (0 to {}) nor -1 (nobody); \
                     member_keys has {members} members",
                    members as i64 - 1
                )))
            }
        }
    }
    Ok(counts)
}
