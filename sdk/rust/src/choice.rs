//! What [`Bot::decide`](crate::Bot::decide) returns, and how it becomes an Action.

use crate::moves::Move;
use crate::proto as pb;

/// The most of an action's debug note the referee keeps; the SDK cuts longer notes
/// (never inside a character).
pub const MAX_DEBUG_BYTES: usize = 256;

/// The most moves the referee accepts in one [`Choice::Plan`].
pub const MAX_PLAN_MOVES: usize = 32;

/// A bot's answer to one decision. Whether the move is legal is the referee's to judge.
///
/// ```
/// use spite::{Choice, Move};
/// let pass: Choice = Move::PASS.into();
/// let noted = Choice::Index(-1).with_debug("the last legal move");
/// # let _ = (pass, noted);
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Choice {
    /// One move, usually one of the observation's `legal_moves`.
    Move(Move),
    /// Moves to play in order without a round trip each. The referee applies them one by
    /// one and stops, dropping the rest unjudged, as soon as the seat learns something new
    /// (a stock card turned up, cards drawn) or the turn ends, and asks again; an illegal
    /// move stops it too (the moves before it stay played). 1 to [`MAX_PLAN_MOVES`] moves:
    /// the referee counts an empty plan as malformed.
    Plan(Vec<Move>),
    /// `legal_moves[i]`; a negative index counts from the end (-1 is the last legal move).
    Index(isize),
    /// A choice with a note on what the bot was thinking, stored in the replay (cut to
    /// [`MAX_DEBUG_BYTES`]); built by [`Choice::with_debug`].
    Noted(Box<Choice>, String),
}

impl Choice {
    /// This choice with a note for the replay. The outermost note is the one sent.
    pub fn with_debug(self, note: impl Into<String>) -> Choice {
        Choice::Noted(Box::new(self), note.into())
    }
}

impl From<Move> for Choice {
    fn from(m: Move) -> Choice {
        Choice::Move(m)
    }
}

impl From<Vec<Move>> for Choice {
    fn from(plan: Vec<Move>) -> Choice {
        Choice::Plan(plan)
    }
}

/// The Action answering decision `id` with `choice`; `legal` is the number of legal
/// moves (to resolve a negative index). Errs only for a negative index beyond the list.
pub(crate) fn action_for(id: u64, choice: Choice, legal: usize) -> Result<pb::Action, String> {
    let mut action = pb::Action { decision_id: id, ..Default::default() };
    let mut choice = choice;
    while let Choice::Noted(inner, note) = choice {
        if action.debug.is_empty() {
            action.debug = cut(&note, MAX_DEBUG_BYTES).to_owned();
        }
        choice = *inner;
    }
    action.choice = Some(match choice {
        Choice::Move(m) => pb::action::Choice::Move(m.into()),
        Choice::Plan(moves) => {
            pb::action::Choice::Plan(pb::Plan { moves: moves.into_iter().map(Into::into).collect() })
        }
        Choice::Index(i) => {
            let index = if i < 0 { i + legal as isize } else { i };
            let index = u32::try_from(index)
                .map_err(|_| format!("decide returned Choice::Index({i}), outside the {legal} legal moves"))?;
            pb::action::Choice::MoveIndex(index)
        }
        Choice::Noted(..) => unreachable!("notes were unwrapped above"),
    });
    Ok(action)
}

/// At most `limit` bytes of `text`, never cut inside a character.
pub(crate) fn cut(text: &str, limit: usize) -> &str {
    if text.len() <= limit {
        return text;
    }
    let mut end = limit;
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    &text[..end]
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Card, Source};

    fn wire(text: &str) -> pb::Move {
        text.parse::<Move>().unwrap().into()
    }

    #[test]
    fn choices_become_actions() {
        let m: Move = "D1:Q>C3".parse().unwrap();
        let plan = vec![Move::play(Source::Stock, 0, Card::ACE, 0), Move::play(Source::Hand, 0, Card(2), 0)];
        let cases = [
            (Choice::Move(m), pb::action::Choice::Move(m.into()), ""),
            (Choice::Index(2), pb::action::Choice::MoveIndex(2), ""),
            (Choice::Index(-1), pb::action::Choice::MoveIndex(4), ""),
            (
                plan.clone().into(),
                pb::action::Choice::Plan(pb::Plan { moves: vec![wire("S:A>C0"), wire("H:2>C0")] }),
                "",
            ),
            (
                Choice::from(Move::PASS).with_debug("nothing to do"),
                pb::action::Choice::Move(wire("pass")),
                "nothing to do",
            ),
            (Choice::Index(0).with_debug("inner").with_debug("outer"), pb::action::Choice::MoveIndex(0), "outer"),
        ];
        for (choice, expected, debug) in cases {
            let action = action_for(9, choice.clone(), 5).unwrap();
            assert_eq!(
                action,
                pb::Action { decision_id: 9, choice: Some(expected), debug: debug.into() },
                "{choice:?}"
            );
        }
        assert!(action_for(9, Choice::Index(-6), 5).is_err());
        assert!(action_for(9, Choice::Index(-6).with_debug("x"), 5).is_err());
    }

    #[test]
    fn debug_notes_are_cut_on_a_character() {
        let long = "é".repeat(200); // 400 bytes
        let action = action_for(1, Choice::Index(0).with_debug(long), 1).unwrap();
        assert_eq!(action.debug.len(), MAX_DEBUG_BYTES);
        let odd = format!("a{}", "é".repeat(200)); // the cut falls inside a character
        assert_eq!(cut(&odd, MAX_DEBUG_BYTES).len(), MAX_DEBUG_BYTES - 1);
        assert_eq!(cut("naïve", 3), "na");
        assert_eq!(cut("short", 64), "short");
    }
}
