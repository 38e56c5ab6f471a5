//! An assignment under construction, as the local moves change it: the owner of every
//! flat partition, the partitions each member holds (in the order they came to it), each
//! member's lag, and what each member holds by topic (kept until its partitions change).
//!
//! The order of a member's partitions decides which of equal lags a step picks: a
//! partition given joins the end, a partition taken away leaves its place, and what a
//! member holds by topic lists topics in order of first appearance.

use std::rc::Rc;

/// No topic, member or group entry: the empty slot of the dense lookup tables.
pub const NONE: u32 = u32::MAX;

/// What one member holds, by topic: topics in order of first appearance, each topic's
/// partitions in the member's order.
pub struct ByTopic {
    pub topics: Vec<u32>,
    /// Topic `i`'s partitions are `parts[starts[i]..starts[i + 1]]`.
    starts: Vec<u32>,
    parts: Vec<u32>,
}

impl ByTopic {
    pub fn group(&self, i: usize) -> &[u32] {
        &self.parts[self.starts[i] as usize..self.starts[i + 1] as usize]
    }
}

/// The group the moves work in: fixed while they run.
pub struct Group<'a> {
    /// Per flat partition.
    pub lags: &'a [i64],
    pub topic_of: Vec<u32>,
    /// Per member, its subscription's number.
    pub subscription_of: Vec<u32>,
    /// Per subscription, its topics ascending.
    pub subscriptions: Vec<Vec<u32>>,
    /// Per topic, the base count P // C every subscriber holds.
    pub base: &'a [i64],
    /// Per flat partition, its previous owner or -1; None when nobody owned anything.
    pub previous: Option<&'a [i64]>,
    /// The layout keeps the totals within one, not each topic's counts (every member
    /// subscribes to every topic): changes may trade partitions of any two topics.
    pub by_totals: bool,
}

impl Group<'_> {
    pub fn subscribes(&self, m: usize, t: u32) -> bool {
        self.subscriptions[self.subscription_of[m] as usize]
            .binary_search(&t)
            .is_ok()
    }
}

/// The changing half.
pub struct Placement<'a> {
    pub group: Group<'a>,
    pub owner: Vec<u32>,
    pub held: Vec<Vec<u32>>,
    pub load: Vec<i128>,
    by_topic: Vec<Option<Rc<ByTopic>>>,
    /// Scratch, one entry per topic, NONE between uses.
    pub slot_h: Vec<u32>,
    pub slot_o: Vec<u32>,
}

impl<'a> Placement<'a> {
    /// `held`: each member's partitions, in order; `owner`: the member holding each
    /// partition, or NONE (every partition held at most once).
    pub fn new(group: Group<'a>, held: Vec<Vec<u32>>, owner: Vec<u32>) -> Placement<'a> {
        // one entry per topic: every topic number is below base.len() (checked by the caller)
        let topics = group.base.len();
        // one pass in partition order (each member's list would read the lags at random)
        let mut load = vec![0i128; held.len()];
        for (&m, &lag) in owner.iter().zip(group.lags) {
            if m != NONE {
                load[m as usize] += i128::from(lag);
            }
        }
        Placement {
            group,
            owner,
            by_topic: vec![None; held.len()],
            held,
            load,
            slot_h: vec![NONE; topics],
            slot_o: vec![NONE; topics],
        }
    }

    /// `x` leaves its member's list and joins the end of `to`'s.
    pub fn move_to(&mut self, x: u32, to: usize) {
        let m = self.owner[x as usize] as usize;
        let held = &mut self.held[m];
        if let Some(at) = held.iter().position(|&y| y == x) {
            held.remove(at);
        }
        let lag = i128::from(self.group.lags[x as usize]);
        self.load[m] -= lag;
        self.by_topic[m] = None;
        self.owner[x as usize] = to as u32;
        self.held[to].push(x);
        self.load[to] += lag;
        self.by_topic[to] = None;
    }

    /// How many more partitions would be off their previous owner if `x` went to `to`.
    pub fn cost(&self, x: u32, to: usize) -> i128 {
        let Some(previous) = self.group.previous else {
            return 0;
        };
        let home = previous[x as usize];
        if home < 0 {
            return 0;
        }
        let owner = i64::from(self.owner[x as usize]);
        i128::from(home != to as i64) - i128::from(home != owner)
    }

    pub fn max_load(&self) -> i128 {
        self.load.iter().copied().max().unwrap_or(0)
    }

    /// What `m` holds by topic, kept until `m`'s partitions change.
    pub fn held_by_topic(&mut self, m: usize) -> Rc<ByTopic> {
        if let Some(known) = &self.by_topic[m] {
            return Rc::clone(known);
        }
        let made = Rc::new(self.by_topic_of(m));
        self.by_topic[m] = Some(Rc::clone(&made));
        made
    }

    fn by_topic_of(&mut self, m: usize) -> ByTopic {
        let topic_of = &self.group.topic_of;
        // slot_h: each topic's entry number while counting
        let mut topics = Vec::new();
        let mut counts: Vec<u32> = Vec::new();
        for &x in &self.held[m] {
            let t = topic_of[x as usize];
            let slot = &mut self.slot_h[t as usize];
            if *slot == NONE {
                *slot = topics.len() as u32;
                topics.push(t);
                counts.push(0);
            }
            counts[*slot as usize] += 1;
        }
        let mut starts = Vec::with_capacity(topics.len() + 1);
        let mut next = Vec::with_capacity(topics.len());
        let mut at = 0u32;
        for &count in &counts {
            starts.push(at);
            next.push(at);
            at += count;
        }
        starts.push(at);
        let mut parts = vec![0u32; at as usize];
        for &x in &self.held[m] {
            let entry = self.slot_h[topic_of[x as usize] as usize] as usize;
            parts[next[entry] as usize] = x;
            next[entry] += 1;
        }
        for &t in &topics {
            self.slot_h[t as usize] = NONE;
        }
        ByTopic {
            topics,
            starts,
            parts,
        }
    }
}
