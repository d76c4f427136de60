"""Splito (docs/SPLITO.md): pure, deterministic rules, objective cards, record, referee
and bots. No I/O, no randomness except the bots' and the test dealer's own seeds."""

from splitnet.splito.bots import BOTS, LEVELS, Bot, EasyBot, HeuristicBot, RandomBot, make_bot
from splitnet.splito.engine import (
    SIDES,
    TRANSITIONS,
    Game,
    IllegalMove,
    ObjectiveResult,
    Phase,
    Play,
    PlayLog,
    SeatScore,
    Side,
    UnknownFace,
    commitment,
    full_deck,
    zone_of,
    zone_seats,
)
from splitnet.splito.objectives import (
    Objective,
    ObjectiveError,
    ObjectiveSet,
    default_objective_set,
    parse_objective_set,
)
from splitnet.splito.record import Verdict, build_record, check_record, check_text, dumps
from splitnet.splito.settings import SettingsError, SplitoSettings

__all__ = [
    "BOTS", "LEVELS", "SIDES", "TRANSITIONS", "Bot", "EasyBot", "Game", "HeuristicBot",
    "IllegalMove", "Objective",
    "ObjectiveError", "ObjectiveResult", "ObjectiveSet", "Phase", "Play", "PlayLog",
    "RandomBot", "SeatScore", "SettingsError", "Side", "SplitoSettings", "UnknownFace",
    "Verdict", "build_record", "check_record", "check_text", "commitment",
    "default_objective_set", "dumps", "full_deck", "make_bot", "parse_objective_set",
    "zone_of", "zone_seats",
]
