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

/// The topics' first flat positions and their end: `topic_starts` checked to be 0, then
/// ascending, ending at `partitions`, with one more entry than there are topics.
pub fn topic_bounds(
    starts: &[i64],
    topics: usize,
    partitions: usize,
) -> Result<Vec<usize>, Invalid> {
    if partitions > u32::MAX as usize {
        return Err(Invalid(format!(
            "owner has {partitions} partitions, more than {} (the most one answer can hold)",
            u32::MAX
        )));
    }
    if starts.len() != topics + 1 {
        return Err(Invalid(format!(
            "topic_starts has {} entries but topic_keys names {topics} topics: it needs one \
             more entry than there are topics",
            starts.len()
        )));
    }
    if starts[0] != 0 {
        return Err(Invalid(format!("topic_starts[0] is {}, not 0", starts[0])));
    }
    for (t, pair) in starts.windows(2).enumerate() {
        if pair[1] < pair[0] {
            return Err(Invalid(format!(
                "topic_starts is not ascending: topic_starts[{}] = {} is below topic_starts[{t}] = {}",
                t + 1,
                pair[1],
                pair[0]
            )));
        }
    }
    let last = starts[topics];
    if usize::try_from(last).ok() != Some(partitions) {
        return Err(Invalid(format!(
            "topic_starts ends at {last} but owner has {partitions} partitions: they must match"
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

/// The topics' bounds over a group's lags: `topic_starts` checked to run from 0, ascending,
/// to `partitions` (the number of lags).
pub fn lag_topic_bounds(starts: &[i64], partitions: usize) -> Result<Vec<usize>, Invalid> {
    if partitions > u32::MAX as usize {
        return Err(Invalid(format!(
            "lags has {partitions} partitions, more than {} (the most one group can hold)",
            u32::MAX
        )));
    }
    if starts.first() != Some(&0) {
        return Err(Invalid(format!(
            "topic_starts must start at 0, got {:?}",
            starts.first()
        )));
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
            "topic_starts ends at {last} but lags has {partitions} partitions: they must match"
        )));
    }
    Ok(starts.iter().map(|&s| s as usize).collect())
}
