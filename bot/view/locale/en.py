"""English texts of the bot: the "en" half of every table in :mod:`bot.view.i18n`
(which says what each table is for and assembles them per language)."""

from __future__ import annotations

from games.engine import Reason

TEXTS: dict[str, str] = {
    # the Mini App (bot/gateway/webapp/): its own words, and its refusals
    "app_connecting": "Connecting…", "app_reconnecting": "Reconnecting…",
    "app_offline": "Offline", "app_connected": "Online", "app_log": "Coup log",
    "app_close": "Close", "app_your_cards": "Your cards", "app_your_turn": "Your turn",
    "app_waiting_for": "Waiting for {names}", "app_confirm": "Confirm",
    "app_amount": "Amount", "app_result": "Result", "app_spectator": "You are watching",
    "app_bank": "Bank", "app_pot": "Pot", "app_coup": "{deal}",
    "app_seconds": "{n} s",
    "app_pick_cards": "Pick up to {n} cards",
    "app_bad_init": "This page was not opened by Telegram, or too long ago. "
                    "Open the table again from the group.",
    "app_not_member": "This table is for the members of its group.",
    "app_no_table": "There is no table here any more.",
    "app_bad_request": "That is not an action this table knows.",
    "app_log_empty": "Nothing has happened yet.", "app_you": "you",
    "app_network_error": "No connection. Please try again.",
    "app_card_back": "Face-down card", "app_card_name": "{rank} of {suit}",
    "app_card_ranks": "Two,Three,Four,Five,Six,Seven,Eight,Nine,Ten,Jack,Queen,King,Ace",
    "app_card_suits": "clubs,diamonds,hearts,spades", "app_table": "Table",
    "app_open_table": "🃏 Open table",
    "dealt_face_down_each": "{players} each get {each_cards} face down",
    "dealt_face_down": "{players} each get a card face down",
    "welcome_group": "Hello! I host card games for play chips. /newtable opens a table, "
                     "/rules GAME explains a game, /balance shows your chips.",
    "welcome_private": "Hello! I will send you your hidden cards here. Play in a group: "
                       "add me to one and send /newtable there.",
    "dm_enabled": "Private messages are on: your cards will come here.",
    "help": "/newtable — open a table\n/balance — your chips\n/bonus — daily bonus\n"
            "/stats — your stats\n/top — standings\n/season — this season, or a past one\n"
            "/history — your latest results\n"
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
    "rich_title": "Richest players:",
    "rich_line": "{rank}. {name} — {total}",
    "rich_empty": "Nobody has played here yet.",
    "top_title": "🏆 <b>{period}</b> · {game}",
    "top_today": "Today", "top_week": "Last 7 days", "top_month": "Last 30 days",
    "top_all": "All time",
    "top_line": "{rank}. {name} — {net} ({coups}, {won} won)",
    "top_nobody": "Nobody is ranked yet.",
    "top_min": "To be ranked, play {coups}.",
    "top_usage": "Try: /top [today|week|month|all] [game], or /top chips for the richest.",
    "stats_title": "📊 <b>{name}</b> · {game} · {scope}",
    "stats_all_games": "all games", "stats_this_chat": "this chat",
    "stats_all_chats": "all chats",
    "stats_none": "No settled coups yet.",
    "stats_played": "Played: {coups} · won {won} · lost {lost}",
    "stats_net": "Net: {net}",
    "stats_extremes": "Biggest win: {best} · biggest loss: {worst}",
    "stats_banks": "Banks held: {banks} · longest run: {run}",
    "stats_feat": "{label}: {n}",
    "stats_best_hand": "Best hand: {hand}",
    "stats_unknown": "Nobody called {name} plays here. Reply to his message with /stats.",
    "stats_usage": "Try: /stats [game]; as a reply to someone's message, his; "
                   "or /stats @name [game].",
    "season_post_title": "🏁 <b>Season {number} · {season}</b> is over",
    "season_podium": "{medal} {name} — {net} ({coups})",
    "season_champion": "🏆 Champion: {name} ({net})",
    "season_most_coups": "🎲 Most coups: {name} ({coups})",
    "season_best_banker": "🏦 Best banker: {name} ({banks})",
    "season_best_hand": "🃏 Best hand: {name} ({hand})",
    "season_next": "A new season has begun: /season",
    "season_now_title": "📅 <b>This season · {season}</b> ({first} – {last})",
    "season_nobody": "Nobody was ranked in season {number} ({season}).",
    "season_none": "No season has ended here yet.",
    "season_unknown": "There is no season {number} here; seasons ended: {count}.",
    "season_off": "Seasons are off in this chat: /settings default season month",
    "season_usage": "Try: /season, or /season N for a past season.",
    "season_set": "Seasons in this chat: {kind}.",
    "season_kind_week": "weekly", "season_kind_month": "monthly",
    "season_kind_quarter": "quarterly", "season_kind_off": "off",
    "season_bad": "season: off | week | month | quarter",
    "season_week": "week {week}, {year}", "season_month": "{month} {year}",
    "season_quarter": "Q{quarter} {year}",
    "month_1": "January", "month_2": "February", "month_3": "March", "month_4": "April",
    "month_5": "May", "month_6": "June", "month_7": "July", "month_8": "August",
    "month_9": "September", "month_10": "October", "month_11": "November",
    "month_12": "December",
    "title_champion": "🏆 Champion of {chat}, {season}",
    "title_most_coups": "🎲 Most coups in {chat}, {season}",
    "title_best_banker": "🏦 Best banker of {chat}, {season}",
    "title_best_hand": "🃏 Best hand in {chat}, {season}",
    "history_title": "{name}, your latest results:",
    "history_empty": "{name}, you have no results here yet.",
    "history_chats": "{name}, your latest results in each chat:",
    "history_chat": "<b>{chat}</b>:",
    "history_nowhere": "{name}, you have no results in any chat yet.",
    "history_coup": "{game} · {deal}: {amount}",
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
    "settings_no_app": "Cannot set that: this bot has no table app (its host has not set "
                       "one up), so the table is played in the chat.",
    "settings_unknown": "There is no setting {key}. A {game} table's settings: {keys}.",
    "settings_seated": "Game settings change only while nobody is seated.",
    "closed_table": "The table is closed; every chip went back to the wallets.",
    "closed_idle": "⏰ Nobody has played for {n} decisions in a row: the table closes itself.",
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
    "stale_coup": "That button was for {pressed}; this is {now}.",
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
    "your_cards_up": "Your cards: <b>{cards}</b> · face up: <b>{up}</b>",
    "ask_amount": "Type the amount ({min}–{max}) in reply to my message below, here in the "
                  "group.",
    "ask_amount_any": "Type the amount in reply to my message below, here in the group.",
    "ask_amount_private": "Type the amount ({min}–{max}) in reply to my message below, here "
                          "in our private chat.",
    "ask_amount_private_any": "Type the amount in reply to my message below, here in our "
                              "private chat.",
    "ask_amount_here": "Write the amount ({min}–{max}) in this chat.",
    "ask_amount_here_any": "Write the amount in this chat.",
    "ask_prompt": "{who}, {label}: how much? {range}",
    "ask_prompt_private": "✏️ {label}: how much? {range}",
    "amount_which": "{name}, write @{bot} and an amount while one amount is asked of you; "
                    "for anything else press ✏️ first.",
    "amount_not_number": "{name}, send a whole number of chips (e.g. 50).",
    "amount_bounds": "{name}, the amount must be from {min} to {max}.",
    "amount_accepted": "{name}: {amount}.",
    "dm_blocked": "{name}, I cannot write to you privately. Open {link} and press Start "
                  "to get your cards; meanwhile the \"My cards\" button shows them.",
    "dm_header": "<b>{game} · {deal}</b>",
    "table_title": "<b>{game} · {deal}</b>",
    "idle_table": "<b>{game}</b> · {phase}",
    "bank": "bank {amount}",
    "pot": "pot {amount}",
    "seat_stack": "{stack}",
    "seat_stake": "stake {stake}",
    "seat_hidden": "🂠×{n}",
    "turn": "⏳ {names} · {left}",
    "turn_nodeadline": "⏳ {names}",
    "turn_private": "⏳ {names} · deciding privately · {left}",
    "turn_private_nodeadline": "⏳ {names} · deciding privately",
    "buttons_in_cards": "👉 {names}: your buttons are under 🂠 My cards.",
    "seconds": "{n} s",
    "named": "{name}: {text}",
    "committed_shoe": "🔒 shoe committed · /verify",
    "back": "{name} takes his own chips back",
    "back_with": "{name} takes his own chips back with {hand}",
    "split_back": "{names} split the pot: each takes his own chips back",
    "and": "{first} and {last}",
    "nobody_won": "Stand-off: every stake goes back",
    "wins": "{name} wins {amount}",
    "wins_with": "{name} wins {amount} with {hand}",
    "hand_points": "{n} {unit}",
    "hand_bust": "{n}, bust",
    "prompt_done": "✅ {label}",
    "prompt_timed_out_did": "⏰ Time ran out; the table decided for you: {line}",
    "prompt_timed_out": "⏰ Time ran out: the table decided for you.",
    "prompt_coup_over": "🏁 {deal} is over.",
    "prompt_over": "⌛ This decision is over.",
    "prompt_closed": "🚪 The table is closed.",
    "decide_private": "Your move at the table — choose here:",
    "no_seats": "Nobody is seated.",
    "stood_up": "{name} timed out twice and is stood up.",
    "timed_out": "⏰ Time is up: {names}.",
    "achievement_line": "{icon} {name}: <b>{title}</b> — {what}",
    "achievement_dm": "{icon} New achievement in «{chat}»: <b>{title}</b> — {what}",
    "achievement_dm_untitled": "{icon} New achievement in a group: <b>{title}</b> — {what}",
    "stats_achievements": "🏅 Achievements: {n} — {titles}",
    "last_result": "🏆 {deal}: {headline} ({nets})",
    "timed_out_did": "⏰ {line} (timed out)",
    "settled_title": "{game} · {deal} settled",
    "result_line": "{name}: {delta}",
    "new_coup": "New coup",
    "open_table": "🃏 Open table",
    "app_card": "🃏 Moves are made in the table app or in your private chat with the bot.",
    "my_cards_button": "🂠 My cards",
    "type_amount": "✏️ amount",
    "switch_way": "🔁 {way}",
    "switch_done": "Your stake now: {way}",
    "btn_other": "{label} {amount}",
    "phase": "Phase: {phase}",
    "wallet_low": "Your wallet is empty: /bonus gives daily chips.",
    "join_done": "🪑 You sit down with {amount}",
    "pick_private": "{label}: tick your cards, then confirm.",
    "see_private": "Choose in your private chat with the bot.",
    "only_you": "🂠 Only you see this message.",
    "see_below": "Only you see the message below.",
    "ask_prompt_here": "✏️ {label}: how much? {range} Write the number in this chat.",
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


# Poker hands (games.poker.ranking.HandValue): one template per category; {n0} is the
# first rank's name, {p1} the second rank's plural (RANK_FORMS), ranks deuce to ace.
RANK_FORMS: dict[str, tuple[str, ...]] = {
    "n": ("deuce", "trey", "four", "five", "six", "seven", "eight", "nine", "ten", "jack",
          "queen", "king", "ace"),
    "p": ("deuces", "treys", "fours", "fives", "sixes", "sevens", "eights", "nines", "tens",
          "jacks", "queens", "kings", "aces"),
}

# The phases stay the phase names with spaces: the e2e policies read them back.


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
# Russian: 1, 21, 31… one, 2–4, 22–24… few, the rest many; see bot.view.i18n.plural).
NOUN_FORMS: dict[str, tuple[str, str, str]] = {
    "point": ("point", "points", "points"),
    "card": ("card", "cards", "cards"),
    "chip": ("chip", "chips", "chips"),
    "second": ("second", "seconds", "seconds"),
    "deck": ("deck", "decks", "decks"),
    "decision": ("decision", "decisions", "decisions"),
    "coup": ("coup", "coups", "coups"),
    "bank": ("bank", "banks", "banks"),
}

# /settings: what each setting is, and its unit (a key of NOUN_FORMS), or the values it takes.
SETTINGS: dict[str, tuple[str, str]] = {
    "timeout": ("time for each decision", "second"),
    "turn_dm": ("each awaited player's turn in his private chat", "on | off"),
    "idle_close": ("the table closes itself after this many decisions in a row with nobody "
                   "playing (0: never)", "decision"),
    "screen": ("where the game is played: chat, on the group's table message; app, in "
               "the table app, the group getting each coup's card and result",
               "chat | app"),
}

# Words the host says itself (history lines, the banker of a result).
WORDS: dict[str, str] = {
    "starting_grant": "starting chips", "daily_bonus": "daily bonus", "banker": "banker",
}
