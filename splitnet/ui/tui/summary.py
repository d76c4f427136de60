"""What the table keeps of a finished round: a snapshot taken the moment the round ends.

A session may deal the next round straight away (an in-process session does), so the pads,
the hands left and the way the round ended are copied out of the view when it reports
``round_over``/``game_over``; the summary screen then shows the copy.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from splitnet.games.split.rules import Game, Pad
from splitnet.games.split.rules.settings import ROWS


@dataclass
class RoundSummary:
    round_no: int
    rounds: int
    players: list[str]
    you: int
    reason: str  # "out" | "pile_empty" | "abandoned" (R8.6)
    seat: int  # who went out / drew the last card
    pad: Pad
    marks_before: list[dict[str, int]]
    round_marks: list[dict[str, int]]
    totals: list[int]  # Game.score after the round
    hands_left: list[list[int | None]]  # faces this seat may see; None = hidden (R8)
    late_lays: list[tuple[int, str, list[int | None]]]  # seat, match type, faces
    game_over: bool
    winners: list[int] = field(default_factory=list)
    verdict: str | None = None
    #: who dealt the round (None if the table did not see it dealt, e.g. after a resume)
    dealer: int | None = None

    @classmethod
    def capture(cls, view: Game, players: list[str], you: int,
                verdict: str | None) -> RoundSummary | None:
        end = view.last_end
        if end is None or view.phase not in ("round_over", "game_over") or not end.marks:
            return None
        before = [{r: view.marks[s][r] - end.marks[s].get(r, 0) for r in ROWS}
                  for s in range(view.n)]
        game_over = view.phase == "game_over"
        return cls(
            round_no=view.round_no,
            rounds=view.settings.rounds,
            players=list(players),
            you=you,
            reason=end.reason,
            seat=end.seat,
            pad=view.settings.pad,
            marks_before=before,
            round_marks=[dict(m) for m in end.marks],
            totals=[view.score(s) for s in range(view.n)],
            hands_left=[[view.faces[slot] for slot in hand] for hand in end.hands_left],
            late_lays=[(int(ll["seat"]), str(ll["match"]),
                        [view.faces[s] for s in ll["cards"]]) for ll in end.late_lays],
            game_over=game_over,
            winners=view.winners() if game_over else [],
            verdict=verdict,
        )
