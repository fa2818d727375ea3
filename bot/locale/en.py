"""English texts of the bot: the "en" half of every table in :mod:`bot.i18n`
(which says what each table is for and assembles them per language)."""

from __future__ import annotations

from games.engine import Reason

GAME_NAMES: dict[str, str] = {
    "chemin_de_fer": "Chemin de fer", "baccarat": "Baccarat", "banchok": "Polish banchok",
    "twenty_one": "Twenty-one", "draw_poker": "Draw poker (jackpots)",
    "stud_poker": "Five-card stud",
}

TEXTS: dict[str, str] = {
    "welcome_group": "Hello! I host card games for play chips. /newtable opens a table, "
                     "/rules GAME explains a game, /balance shows your chips.",
    "welcome_private": "Hello! I will send you your hidden cards here. Play in a group: "
                       "add me to one and send /newtable there.",
    "dm_enabled": "Private messages are on: your cards will come here.",
    "help": "/newtable — open a table\n/balance — your chips\n/bonus — daily bonus\n"
            "/top — richest players\n/history — your latest results\n"
            "/rules GAME — the rules\n/verify — check the shoe\n"
            "/language — ru/en\n/table — show the table again\n"
            "Admins: /settings, /closetable",
    "pick_game": "Which game?",
    "table_exists": "This chat already has a table: {game}. /table shows it.",
    "no_table": "There is no table here. /newtable opens one.",
    "table_opened": "{game}: table opened. Press Join to sit down.",
    "group_only": "This works in a group chat.",
    "from_group": "In <b>{chat}</b>:",
    "answered_privately": "{name}, the answer is in your private chat with me.",
    "unknown_game": "Unknown game. Choose one of: {games}",
    "balance": "{name}: {balance_chips} in the wallet, {on_table} on the table.",
    "balance_chats": "{name}, your chips in each chat:",
    "balance_chat": "<b>{chat}</b>: {balance} in the wallet, {on_table} on the table",
    "balance_nowhere": "{name}, you have no chips anywhere yet. Play in a group: add me to "
                       "one and send /newtable there.",
    "chat_untitled": "a group",
    "chat_untitled_game": "a group with a {game} table",
    "top_title": "Richest players:",
    "top_line": "{rank}. {name} — {total}",
    "top_empty": "Nobody has played here yet.",
    "history_title": "{name}, your latest results:",
    "history_empty": "{name}, you have no results here yet.",
    "history_coup": "{game} · coup #{coup}: {amount}",
    "history_other": "{what}: {amount}",
    "bonus_ok": "Daily bonus: +{amount}. Wallet: {balance}.",
    "bonus_taken": "You have already taken today's bonus.",
    "rules_missing": "No rules text for {game} yet.",
    "rules_pick": "Rules of which game?",
    "language_pick": "Language of this chat:",
    "language_set": "Language: English.",
    "admins_only": "Only chat administrators can do that.",
    "settings_title": "Settings of this table ({game}):",
    "settings_line": "{key} = {value} — {what}",
    "settings_defaults": "This chat's next tables: {values}",
    "settings_how_table": "Change it for this table: /settings KEY VALUE",
    "settings_how_default": "For this chat's next tables: /settings default KEY VALUE",
    "settings_set": "This table: {key} = {value}. For this chat's next tables too: "
                    "/settings default {key} {raw}",
    "settings_default_set": "This chat's next tables: {key} = {value}.",
    "settings_default_dropped": "This chat's next tables: {key} as the bot sets it.",
    "settings_range": "{key} takes {min} to {max} {unit}",
    "settings_game_key": "{key} is a game's setting: name the game, "
                         "/settings default GAME {key} VALUE",
    "settings_bad": "Cannot set that: {error}",
    "settings_seated": "Game settings change only while nobody is seated.",
    "table_closed": "The table is closed; every chip went back to the wallets.",
    "verify_current": "Current shoe: its commitment, the Merkle root over every card with its "
                      "position and salt, shown before the cut:\n{commitment}",
    "verify_none": "No shoe has been shuffled yet.",
    "verify_revealed": "Last revealed shoe {commitment}: {size_cards} in the committed order; "
                       "{how}, so dealing began at committed position {cut}.",
    "verify_current_cut": "How it was cut: {how}, so dealing begins at committed position "
                          "{cut}.",
    "verify_cut_by": "{player} chose to cut it at {cut}",
    "verify_cut_rule": "{player}'s time to cut ran out, and the timeout rule cut it at {cut} "
                       "(SHA-256 of \"cut|commitment|seated ids|coup\" mod {size})",
    "verify_uncut_hand": "nobody cuts a deck dealt for one poker hand",
    "verify_uncut_draw": "nobody cuts a shoe only drawn from for the bank",
    "verify_uncut": "nobody cut it",
    "verify_burned": "Burned face up first: {burned_cards}.",
    "verify_all": "Everything is published: the order and the salt every card's salt comes from.",
    "verify_shown": "Only the cards shown at the table are proven ({count_cards}); the others "
                    "stay secret.",
    "your_proof": "🔐 Proof of your cards in hand #{hand} (save this message to a file, check "
                  "it with python -m games.verify FILE):\n"
                  "<blockquote expandable>{record}</blockquote>",
    "proof_sent": "🔐 {name}, the proof of your own cards in hand #{hand} is in your private "
                  "chat.",
    "verify_how": "To check: save the JSON below to a file and run python -m games.verify FILE; "
                  "it checks the root, each card's proof, the cut and every dealt card.",
    "stale": "This button is out of date.",
    "stale_coup": "That button was for coup #{coup}; this is coup #{now}.",
    "stale_turn": "That button was for an earlier turn.",
    "now_yours": "Your move now: {labels}.",
    "now_waiting": "Now waiting for {names}.",
    "next_yours": "your move again",
    "next_waiting": "now {names}",
    "forged": "This button is not valid.",
    "other_table": "This button belongs to another table.",
    "table_resumed": "▶️ The table resumes.",
    "table_paused": "The table is paused: the bot cannot write in this chat.",
    "internal_error": "Something went wrong, nothing changed.",
    "done": "OK",
    "no_cards": "You have no hidden cards now.",
    "your_cards": "Your cards: <b>{cards}</b>",
    "ask_amount": "Type the amount ({min}–{max}) in the reply I opened for you.",
    "ask_amount_any": "Type the amount in the reply I opened for you.",
    "ask_prompt": "{who}, {label}: how much? {range}",
    "ask_prompt_private": "✏️ {label}: how much? {range}",
    "amount_which": "{name}, write @{bot} and an amount while one amount is asked of you; "
                    "for anything else press ✏️ first.",
    "amount_not_number": "{name}, send a whole number of chips (e.g. 50).",
    "amount_bounds": "{name}, the amount must be from {min} to {max}.",
    "amount_accepted": "{name}: {amount}.",
    "dm_blocked": "{name}, I cannot write to you privately. Open {link} and press Start "
                  "to get your cards; meanwhile the \"My cards\" button shows them.",
    "dm_header": "<b>{game} · coup #{coup}</b>",
    "table_title": "<b>{game} · coup #{coup}</b>",
    "table_idle": "<b>{game}</b> · waiting for players",
    "bank": "bank {amount}",
    "pot": "pot {amount}",
    "seat_stack": "{stack}",
    "seat_stake": "stake {stake}",
    "seat_hidden": "🂠×{n}",
    "turn": "⏳ {names} · {left}",
    "turn_nodeadline": "⏳ {names}",
    "turn_private": "⏳ {names} · in the private chat · {left}",
    "turn_private_nodeadline": "⏳ {names} · in the private chat",
    "seconds": "{n} s",
    "named": "{name}: {text}",
    "shoe_committed": "🔒 shoe committed · /verify",
    "nobody_won": "Stand-off: every stake goes back",
    "wins": "{name} wins {amount}",
    "wins_with": "{name} wins {amount} with {hand}",
    "points": "{n} {unit}",
    "bust": "{n}, bust",
    "prompt_done": "✅ {label}",
    "prompt_timed_out": "⏰ Time ran out: the table decided for you.",
    "prompt_coup_over": "🏁 The coup is over.",
    "prompt_over": "⌛ This decision is over.",
    "prompt_closed": "🚪 The table is closed.",
    "decide_private": "Your move at the table — choose here:",
    "no_seats": "Nobody is seated.",
    "stood_up": "{name} timed out twice and is stood up.",
    "timed_out": "⏰ Time is up: {names}.",
    "last_result": "🏆 Coup #{coup}: {headline} ({nets})",
    "timed_out_did": "⏰ {line} (timed out)",
    "settled_title": "{game} · coup #{coup} settled",
    "result_line": "{name}: {delta}",
    "new_coup": "New coup",
    "my_cards_button": "🂠 My cards",
    "type_amount": "✏️ amount",
    "btn_other": "{label} {amount}",
    "phase": "Phase: {phase}",
    "wallet_low": "Your wallet is empty: /bonus gives daily chips.",
    "join_done": "🪑 You sit down with {amount}",
    "pick_private": "{label}: tick your cards, then confirm.",
    "see_private": "Choose in your private chat with the bot.",
}

REASONS: dict[Reason, str] = {
    Reason.NOT_SEATED: "You are not seated at this table.",
    Reason.ALREADY_SEATED: "You are already seated.",
    Reason.TABLE_FULL: "The table is full.",
    Reason.NOT_ENOUGH_PLAYERS: "Not enough players yet.",
    Reason.NOT_YOUR_TURN: "It is not your turn.",
    Reason.WRONG_PHASE: "You cannot do that now.",
    Reason.STALE: "This button is out of date.",
    Reason.UNKNOWN_ACTION: "Unknown action.",
    Reason.AMOUNT_OUT_OF_RANGE: "That amount is out of range.",
    Reason.INSUFFICIENT_CHIPS: "You do not have enough chips.",
    Reason.EXCEEDS_BANK: "That stake exceeds what the bank can cover.",
    Reason.BANCO_NOT_ALLOWED: "Banco is allowed only before any other stake.",
    Reason.MUST_DRAW: "The rules make you draw.",
    Reason.MUST_STAND: "The rules make you stand.",
    Reason.CANNOT_DRAW: "You cannot draw another card.",
    Reason.NOT_ALLOWED: "That is not allowed.",
    Reason.JOINING_FORBIDDEN: "Joining this stake is forbidden.",
    Reason.NO_OPENERS: "You need jacks or better to open.",
    Reason.BAD_DISCARD: "That discard is not allowed.",
    Reason.IN_COUP: "Not during a coup; wait until it is settled.",
    Reason.ALREADY_LEAVING: "You are already leaving after this coup.",
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
    "cards_proven": "🔐 Proof of your cards in hand {hand} (save it to a file, check with "
                    "python -m games.verify FILE):\n"
                    "<blockquote expandable>{record}</blockquote>",
    "cut_requested": "{player} is to cut the shoe",
    "cut_awaited": "{player} is to cut the shoe",
    "shoe_cut": "{player} cuts the shoe",
    "cards_burned": "Burned: {cards}",
    "staking_opened": "Coup {coup}: bank {bank}, stakes please",
    "coup_started": ("Coup {coup}: {banker} holds a bank of {bank}", "Coup {coup} begins"),
    "hand_started": "Hand {hand} begins",
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
        "{player} (banker) draws a card",
    ),
    "banker_stood": "{player} (banker) stands",
    "hand_shown": ("{player} shows {cards}: {value}", "{player} shows {cards}"),
    "card_dealt": ("{player} gets {card}", "You get {card}"),
    "card_dealt_face_down": "{player} gets a card face down",
    "cards_dealt_face_down": ("{players} each get {each_cards} face down",
                              "{players} each get a card face down"),
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
    "stood_up": "{player} timed out twice and is stood up",
    "timed_out": ("⏰ {player} timed out: {action}", "⏰ {player} timed out"),
    "coup_settled": (
        "Coup settled ({outcome}): {results}",
        "Coup settled: {results}",
        "Hand settled: {net}",
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
    "bank_limit": "Bank passes at", "punter": "Punter", "stake_total": "Staked on his card",
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

# The phases stay the phase names with spaces: the e2e policies read them back.
WORDS: dict[str, str] = {
    "starting_grant": "starting chips", "daily_bonus": "daily bonus",
    # phases
    "phase:idle": "idle", "phase:auction": "auction", "phase:cut": "cut",
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
    "tripled": "the bank has tripled",
    "nobody_took_bank": "nobody took the bank",
}

NUMBERED: dict[str, str] = {"points": "{n} pts", "total": "{n} pts", "stake": "stake {n}"}

# Poker hands (games.poker.ranking.HandValue): one template per category; {n0} is the
# first rank's name, {p1} the second rank's plural (RANK_FORMS), ranks deuce to ace.
RANK_FORMS: dict[str, tuple[str, ...]] = {
    "n": ("deuce", "trey", "four", "five", "six", "seven", "eight", "nine", "ten", "jack",
          "queen", "king", "ace"),
    "p": ("deuces", "treys", "fours", "fives", "sixes", "sevens", "eights", "nines", "tens",
          "jacks", "queens", "kings", "aces"),
}
HANDS: dict[str, str] = {
    "high_card": "{n0} high",
    "pair": "a pair of {p0}",
    "two_pair": "two pair, {p0} and {p1}",
    "three": "three {p0}",
    "straight": "a straight, {n0} high",
    "flush": "a flush, {n0} high",
    "full_house": "a full house, {p0} over {p1}",
    "four": "four {p0}",
    "straight_flush": "a straight flush, {n0} high",
    "royal_flush": "a royal flush",
    "possible_straight": "possible straight",
    "possible_flush": "possible flush",
    "possible_full_house": "possible full house",
}

# A noun after a number: one, few, many (English: 1 is one, every other number many;
# Russian: 1, 21, 31… one, 2–4, 22–24… few, the rest many; see bot.i18n.plural).
NOUN_FORMS: dict[str, tuple[str, str, str]] = {
    "point": ("point", "points", "points"),
    "card": ("card", "cards", "cards"),
    "chip": ("chip", "chips", "chips"),
    "second": ("second", "seconds", "seconds"),
    "deck": ("deck", "decks", "decks"),
}

# /settings: what each setting is, and its unit (a key of NOUN_FORMS), or the values it takes.
SETTINGS: dict[str, tuple[str, str]] = {
    "timeout": ("time for each decision", "second"),
    "turn_dm": ("each awaited player's turn in his private chat", "on | off"),
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
