"""English texts of the games: names, event templates, labels of facts and feats,
words, values and button labels (:class:`games.engine.GameTexts`, assembled in
:mod:`games.texts`)."""

from __future__ import annotations

GAME_NAMES: dict[str, str] = {
    "chemin_de_fer": "Chemin de fer", "baccarat": "Baccarat", "banchok": "Polish banchok",
    "twenty_one": "Twenty-one", "draw_poker": "Draw poker (jackpots)",
    "stud_poker": "Five-card stud",
}

ACTIONS: dict[str, str] = {
    "join": "🪑 Join", "leave": "🚪 Leave", "start": "▶️ Start", "cut": "✂️ Cut",
    "bid": "Bid", "stake": "Stake", "banco": "Banco!", "pass": "Pass", "draw": "Draw",
    "stand": "Stand", "retire": "Retire", "continue": "Continue", "decline": "Decline",
    "accept": "Accept", "post_bank": "Post bank", "baccara": "Baccara!",
    "join_stake": "Join stake", "forbid_joining": "No joining",
    "allow_joining": "Allow joining",
    "buy": "Buy a card", "open": "Open", "check": "Check", "bet": "Bet", "raise": "Raise",
    "call": "Call", "raise:amount": "Raise to {amount}", "bet:amount": "Bet {amount}",
    "fold": "Fold", "discard": "Discard", "keep": "Keep", "ante": "Ante",
    "name_bank": "Name bank", "take_bank": "Take bank", "draw_card": "Draw a card",
    "turn": "Turn card", "show": "Show", "play_on": "Play on", "no_stake": "No stake",
}

EVENTS: dict[str, str | tuple[str, ...]] = {
    "player_joined": "{player} sits down with {stack}",
    "player_left": ("{player} leaves the table with {stack}", "{player} leaves the table"),
    "player_leaving": "{player} will leave after this coup",
    "leaving": "{player} will leave after this coup",
    "leaving_after_coup": "{player} will leave after this coup",
    "play_started": "{by} starts the game",
    "auction_opened": "Bank auction: bids from {min_bid}",
    "bid_placed": "{player} bids {amount}",
    "bid_passed": "{player} passes",
    "auction_failed": "Nobody bid for the bank",
    "banker_chosen": "{player} holds the bank",
    "bank_offered": (
        "The bank of {amount} is offered to {player}",
        "The bank is offered to {player} (at least {min_bank})",
        "The bank is offered to {player}",
    ),
    "bank_named": "{player} posts a bank of {bank}",
    "bank_declined": "{player} declines the bank",
    "bank_refused_by_all": "Everybody declined the bank: new auction",
    "bank_passed": (
        "{player} takes the bank with {amount}",
        "The bank passes from {src} to {dst}",
        "{from_player} passes the bank on",
        "The bank passes on",
    ),
    "banker_retired": "{player} retires with {amount}",
    "banker_continued": "{player} keeps the bank: {bank}",
    "shoe_committed": "🔒 New shoe shuffled and committed",
    "shoe_revealed": "Shoe finished; /verify proves its cards",
    "cards_proven": "🔐 Proof of your cards in hand {coup} (save it to a file, check with "
                    "python -m games.verify FILE):\n"
                    "<blockquote expandable>{record}</blockquote>",
    "cut_requested": "{player} is to cut the shoe",
    "cut_awaited": "{player} is to cut the shoe",
    "shoe_cut": "{player} cuts the shoe",
    "cards_burned": "Burned: {cards}",
    "staking_opened": "Coup {coup}: bank {bank}, stakes please",
    "coup_started": ("Coup {coup}: {banker} holds a bank of {bank}", "Coup {coup} begins"),
    "hand_started": "Hand {coup} begins",
    "stake_placed": "{player} stakes {amount}",
    "banco_called": "{player} calls Banco! ({amount})",
    "punter_passed": "{player} passes",
    "punter_skipped": "{player} is skipped",
    "coup_void": "Nobody staked: the coup is void",
    "cards_dealt": ("Cards dealt to {playing} and the banker {banker}", "Cards are dealt"),
    "natural_shown": (
        "{player} shows a natural {points}: {cards}",
        "{player} shows a natural: {cards}",
        "Natural: {cards}",
    ),
    "punter_drew": "{player} draws a card",
    "punter_stood": "{player} stands",
    "banker_drew": (
        "{player} (banker) draws {card}, points: {points}",
        "{player} (banker) draws {card}",
        "{player} (banker) draws a card",
    ),
    "banker_stood": "{player} (banker) stands",
    "hand_shown": ("{player} shows {cards}: {value}", "{player} shows {cards}"),
    "card_dealt": ("{player} gets {card}", "You get {card}"),
    "card_dealt_face_down": "{player} gets a card face down",
    "card_bought": ("You buy {card}; your cards: {cards}", "{player} buys a card"),
    "baccara_declared": "{player} declares baccara: {cards}",
    "banker_baccara": ("The banker {player} has baccara", "The banker has baccara"),
    "checked": "{player} checks",
    "folded": "{player} folds",
    "discarded": "{player} discards {count_cards}",
    "hands_thrown_in": "Nobody opened: hands thrown in",
    "table_closed": "Table closed (an unfinished coup is void). Back to the wallets: {returned}",
    "openers_shown": ("{player} shows the openers: {cards}", "{player} shows the openers"),
    "antes_posted": (
        "Antes again for the new deal: {antes}; in the pot from each: {totals}",
        "Antes posted: {antes}",
    ),
    "stood_up": (
        "🚪 {player} cannot cover {least} and is stood up",
        "{player} timed out twice and is stood up",
    ),
    "timed_out": ("⏰ {player} timed out: {action}", "⏰ {player} timed out"),
    "coup_settled": (
        "Absent, stood up: {absent}. The hand is void; the antes go back: {antes}",
        "Coup settled ({outcome}): {results}",
        "Coup settled: {results}",
        "Hand settled: {net}",
        "Coup settled",
    ),
    "table_idle": ("Waiting for players ({reason})", "Waiting for players"),
    "bank_won": "{player} wins the bank: {amount}",
    "hand_seen": "Your hand: {cards}",
    "card_drawn": "You draw {card}",
    "cards_received": "Your cards: {cards}",
    "cards_drawn": "You draw {cards}",
    "bank_ended": (
        "{player}'s bank ends ({reason}) with {amount}",
        "{player}'s bank ends: {amount}",
    ),
    "bank_posted": "{player} posts a bank of {amount}",
    "bank_skipped": (
        "{player} cannot post the bank ({reason})",
        "{player} cannot post the bank",
    ),
    "banker_draw": "Drawing for the bank: {draws}",
    "card_turned": "Card turned for {punter}: {card}",
    "cards_shown": "{player} shows {cards}",
    "extra_shoe_started": (
        "The banker {banker} plays an extra shoe ({extra_shoes_left} left)",
        "The banker plays an extra shoe",
    ),
    "hands_shown": (
        "{playing}: {punters}, points: {punter_points}; "
        "banker: {banker}, points: {banker_points}",
        "Hands: {hands}",
    ),
    "joining_open": "Others may join {punter}'s stake",
    "sat_out": "{player} sits this coup out",
    "shoe_extended": "🔒 The used cards go under the shoe, committed anew",
    "showing": (
        "{player} shows {cards}: {value}; {possible}",
        "{player} shows {cards}: {value}",
    ),
    "stake_declined": "{player} sits this coup out",
    "stake_joined": "{player} joins {punter}'s stake with {amount}",
    "stake_skipped": ("{player} is skipped ({reason})", "{player} is skipped"),
    "stood": "{player} stands",
    "tenure_ended": (
        "The banker {banker} gives up the bank ({reason}); bank {bank}",
        "The banker's tenure ends",
    ),
    "bet_made": "{player} bets {to}",
    "raise_made": "{player} raises to {to}",
    "open_made": "{player} opens with {to}",
    "called": "{player} calls {amount}",
    "stub_rebuilt": "🔒 The stub ran out: the discards ({cards_cards}) are shuffled into a "
                    "new one, committed anew",
    "banker_leaving": "{player} will leave when his bank is empty or tripled",
    "bank_passed_over": "{player} lets the bank pass and keeps his seat",
    "bank_offered_again": "Nobody else takes the bank: {player}, who just held it, may again",
    "bank_not_taken": "Nobody took the bank of {amount}: press Start to offer it again",
    "bank_unaffordable": (
        "Nobody at the table has the {amount_chips} the bank needs: "
        "the table waits for a player who has"
    ),
    "third_card_dealt": "{player} gets a third card {card}",
    "third_card_points": "Your third card {card}: {points_points}",
    "baccara_passed": "{player} plays on",
}

INFO: dict[str, str] = {
    # shoe and settings
    "decks": "Decks", "burn": "Cards burned at the start", "burned": "Burned",
    "cards_left": "Cards left", "discards": "Discards", "commitment": "Shoe hash",
    "commitments": "Shoe hashes", "extra_shoes": "Extra shoes",
    "min_stake": "Min stake", "min_bank": "Min bank",
    # the bank and the stakes
    "banker": "Banker", "last_banker": "Last banker", "offered_to": "Bank offered to",
    "bids": "Bids", "staked": "Staked", "uncovered": "Bank still uncovered",
    "stake_room": "Stakes still allowed", "can_still_stake": "Stakes still allowed",
    "bank_setting": "Bank size", "bank_start": "Bank at the start",
    "bank_limit": "Bank passes at", "punter": "Punter",
    "stake_total": "Staked on the punter's card",
    "joining": "Joining allowed", "joining_forbidden": "Joining forbidden",
    "forbidding": "Forbid joining",
    # the coup
    "playing": "Plays the hand", "punter_cards": "Punter's cards",
    "draw_order": "Draw order", "declarer": "Baccara declared by",
    "last_coup": "Last coup", "last_results": "Last results",
    # poker
    "small_bet": "Small bet", "big_bet": "Big bet", "structure": "Betting",
    "ante": "Ante", "button": "Dealer", "opener": "Opened by",
    "passed_deals": "Deals passed", "ace_four": "Four new cards with an ace",
    "drew": "Cards drawn", "showing": "Showing",
    # my_info: the viewer's own facts
    "points": "Your points", "total": "Your total", "hand": "Your hand", "hint": "Tableau",
    "bust": "Bust",
}

VALUES: dict[str, str] = {
    "win": "win", "loss": "loss", "lose": "loss", "push": "push", "tie_loss": "tie, lost",
    "natural_win": "natural, won", "natural_loss": "natural, lost",
    "banker_natural": "banker's natural", "six_six_split": "six against six, split",
    "natural": "natural", "banker_21": "banker's twenty-one", "banker_bust": "banker bust",
    "both_bust": "both bust", "bust": "bust",
    "not_enough_players": "not enough players", "no_punters": "no punters",
    "bank_broken": "bank broken", "broken": "bank broken", "left": "banker left",
    "banker_left": "banker left", "punter_baccara": "a punter's baccara",
    "no_chips": "no chips", "insufficient_chips": "not enough chips",
    "nobody_can_bank": "nobody can hold the bank",
    "nobody_can_stake": "nobody can stake", "bank_covered": "the bank is covered",
    "tripled": "the bank has tripled", "retired": "retired",
    "shoe_exhausted": "the shoe ran out",
    "nobody_took_bank": "nobody took the bank",
}

NUMBERED: dict[str, str] = {"points": "{n_points}", "total": "{n_points}", "stake": "stake {n}"}


WORDS: dict[str, str] = {
    # one deal, numbered, as the host's headers name it ("coup #4"; poker's: POKER_WORDS)
    "deal_no": "coup #{n}",
    # phases
    "phase:idle": "waiting for players", "phase:auction": "auction", "phase:cut": "cut",
    "phase:staking": "staking", "phase:void_choice": "void choice",
    "phase:punter_draw": "punter draw", "phase:banker_draw": "banker draw",
    "phase:bank_offer": "bank offer", "phase:drawing": "drawing",
    "phase:declaring": "baccara?",
    "phase:post_bank": "post bank", "phase:post": "post", "phase:joining": "joining",
    "phase:banker": "banker", "phase:waiting": "waiting", "phase:betting": "betting",
    "phase:draw": "draw",
    # roles
    "banker": "banker", "punter": "punter", "dealer": "dealer", "opener": "opener",
    "dealer opener": "dealer, opener",
    # statuses
    "to act": "to act", "plays the hand": "plays the hand", "leaving": "leaving",
    "baccara": "baccara", "sits out": "sits out", "forbids joining": "forbids joining",
    "staked": "staked", "joined": "joined", "to cut": "to cut", "to post": "to post",
    "to stake": "to stake", "21": "twenty-one", "stood": "stood", "bust": "bust",
    "all-in": "all-in", "folded": "folded", "in hand": "in hand", "waiting": "waiting",
    "no chips": "no chips",
    # word-valued facts
    "hint:draw": "draw", "hint:stand": "stand",
    # choices on buttons
    "forbid_joining": "No joining", "allow_joining": "Joining allowed",
    "structure:fixed": "fixed limit", "structure:pot": "pot limit",
    "hand:banker": "banker", "hand:punters": "punters",
    "outcome:banker": "banker wins", "outcome:punters": "punters win",
    "outcome:standoff": "standoff",
}

POKER_WORDS: dict[str, str] = {"deal_no": "hand #{n}"}
"""Poker's own words over :data:`WORDS`: it deals hands, not coups."""

# /settings: what each game setting is, and its unit (a noun of NOUN_FORMS, or the
# words it takes).
SETTINGS: dict[str, tuple[str, str]] = {
    "min_stake": ("the smallest stake", "chip"),
    "decks": ("decks in the shoe", "deck"),
    "burn": ("cards burned at the start of a shoe", "card"),
    "bank": ("the bank a banker puts up", "chip"),
    "joining": ("others may join a punter's stake", "on | off"),
    "small_bet": ("the small bet; the big bet is twice it", "chip"),
    "structure": ("betting: fixed limit or pot limit", "fixed | pot"),
    "ante": ("each player's ante", "chip"),
    "ace_four": ("four new cards for a player who keeps an ace", "on | off"),
}

# What a settled coup counts for a player beyond his net (games.engine.Settlement.feats),
# as his statistics list it: a count follows each label.
FEATS: dict[str, str] = {
    "natural": "Naturals", "banco": "Bancos called", "banco_won": "Bancos won",
    "baccara": "Baccaras declared", "extra_shoe": "Extra shoes earned with baccara",
    "bust": "Busts", "joined": "Stakes joined", "bank_tripled": "Banks tripled",
    "voluntary": "Hands entered voluntarily", "opened": "Jackpots opened",
    "showdown": "Showdowns", "showdown_won": "Showdowns won",
    "banco_natural": "Bancos won on a natural nine", "sweep": "Coups with every stake taken",
    "bank_broken": "Banks broken", "three_sevens": "Three sevens",
    "five_card_21": "21s on five cards", "opened_won": "Jackpots opened and won",
}

# A game's own labels over FEATS, where its rules name a feat otherwise.
GAME_FEATS: dict[str, dict[str, str]] = {"twenty_one": {"natural": "Two-card 21s"}}

# Each game's achievements (games.engine.Achievement, by key): its title, and what earns
# it, as the line announcing it reads ("Banco natural — a natural nine that wins a banco").
_POKER_HANDS: dict[str, tuple[str, str]] = {
    "full_house": ("Full house", "a full house or better shown down"),
    "four": ("Four of a kind", "four of a kind or better shown down"),
    "straight_flush": ("Straight flush", "a straight flush shown down"),
    "royal_flush": ("Royal flush", "a royal flush shown down"),
}
_NATURALS: dict[str, tuple[str, str]] = {
    "first_natural": ("First natural", "eight or nine points on the first two cards"),
    "naturals_10": ("Ten naturals", "a natural for the tenth time"),
}
_BANK_RUNS: dict[str, tuple[str, str]] = {
    "bank_5": ("Bank holder", "the bank held five coups in a row"),
    "bank_10": ("Iron bank", "the bank held ten coups in a row"),
}
GAME_ACHIEVEMENTS: dict[str, dict[str, tuple[str, str]]] = {
    "chemin_de_fer": {
        **_NATURALS,
        "banco_won": ("Banco!", "a banco called and won"),
        "bancos_5": ("Banco player", "five bancos won"),
        "banco_natural": ("Banco natural", "a natural nine that wins a banco"),
        **_BANK_RUNS,
    },
    "baccarat": {
        **_NATURALS,
        "baccara": ("Baccara!", "a baccara declared on zero"),
        "extra_shoe": ("One more shoe", "baccara dealt to the banker, earning him another shoe"),
        "sweep": ("Clean sweep", "as banker, every stake of a coup taken, from two punters "
                                "or more"),
        **_BANK_RUNS,
    },
    "banchok": {
        "banco_won": ("Bank!", "a stake of the whole bank, won"),
        "bank_broken": ("Bank breaker", "a win on the card that empties the bank"),
        "joined_10": ("Rider", "ten stakes joined"),
        "bank_tripled": ("Bank tripled", "a bank grown to three times its start"),
        "bank_10": ("Bank holder", "the bank held ten coups in a row"),
        "bank_20": ("Iron bank", "the bank held twenty coups in a row"),
    },
    "twenty_one": {
        "first_natural": ("First 21", "21 on the first two cards"),
        "naturals_10": ("Tenth 21", "21 on two cards for the tenth time"),
        "three_sevens": ("Three sevens", "21 made of three sevens"),
        "five_card_21": ("Five-card 21", "21 on five cards"),
        **_BANK_RUNS,
    },
    "draw_poker": {
        "opened_won": ("Jacks to open", "a jackpot opened and won"),
        "opened_won_10": ("Jackpot regular", "ten jackpots opened and won"),
        **_POKER_HANDS,
    },
    "stud_poker": {
        "showdown_won": ("First showdown", "a showdown won"),
        "showdowns_25": ("Showdown regular", "twenty-five showdowns won"),
        **_POKER_HANDS,
    },
}
