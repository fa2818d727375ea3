"""Russian and English texts: commands, refusals (one sentence per Reason), events, labels.

Every text the bot shows goes through :func:`t`, :func:`reason_text`,
:func:`event_text` or :func:`action_label`. A chat's language is chosen with
/language; until then it is the language of whoever opened the table (or
the default from the settings).
"""

from __future__ import annotations

import re
import string
from typing import Any

from games.cards import pretty
from games.engine import Event, Reason

LANGUAGES = ("en", "ru")

GAME_NAMES: dict[str, dict[str, str]] = {
    "en": {
        "chemin_de_fer": "Chemin de fer", "baccarat": "Baccarat", "banchok": "Polish banchok",
        "twenty_one": "Twenty-one", "draw_poker": "Draw poker (jackpots)",
        "stud_poker": "Five-card stud",
    },
    "ru": {
        "chemin_de_fer": "Шмен де фер", "baccarat": "Баккара", "banchok": "Польский банчок",
        "twenty_one": "Очко", "draw_poker": "Покер с обменом", "stud_poker": "Стад-покер",
    },
}

TEXTS: dict[str, dict[str, str]] = {
    "en": {
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
        "table_exists": "This chat already has a table: {game}.",
        "no_table": "There is no table here. /newtable opens one.",
        "table_opened": "{game}: table opened. Press Join to sit down.",
        "group_only": "This works in a group chat.",
        "unknown_game": "Unknown game. Choose one of: {games}",
        "balance": "{name}: {balance} chips in the wallet, {on_table} on the table.",
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
        "rules_usage": "Usage: /rules GAME, one of: {games}",
        "language_pick": "Language of this chat:",
        "language_set": "Language: English.",
        "admins_only": "Only chat administrators can do that.",
        "settings_show": "Table settings:\n{lines}\nChange: /settings KEY VALUE",
        "settings_set": "Setting {key} = {value}.",
        "settings_bad": "Cannot set that: {error}",
        "settings_seated": "Game settings change only while nobody is seated.",
        "table_closed": "The table is closed; every chip went back to the wallets.",
        "verify_current": "Current shoe commitment (SHA-256 of order|salt):\n{commitment}",
        "verify_none": "No shoe has been shuffled yet.",
        "verify_revealed": "Last finished shoe:\ncommitment {commitment}\nsalt {salt}\ncut {cut}\n"
                           "order {order}",
        "verify_how": "To check: join the order with spaces, add \"|\" and the salt, and "
                      "compute SHA-256 (echo -n \"ORDER|SALT\" | sha256sum); it must equal the "
                      "commitment shown before the cut. Dealing starts at position cut.",
        "stale": "This button is out of date.",
        "forged": "This button is not valid.",
        "other_table": "This button belongs to another table.",
        "internal_error": "Something went wrong, nothing changed.",
        "done": "OK",
        "no_cards": "You have no hidden cards now.",
        "your_cards": "Your cards: {cards}",
        "ask_amount": "Reply in the group with an amount from {min} to {max} within {seconds} s.",
        "ask_amount_any": "Reply in the group with an amount within {seconds} s.",
        "amount_not_number": "{name}, send a whole number of chips (e.g. 50).",
        "amount_bounds": "{name}, the amount must be from {min} to {max}.",
        "amount_accepted": "{name}: {amount}.",
        "dm_blocked": "{name}, I cannot write to you privately. Open {link} and press Start "
                      "to get your cards; meanwhile the \"My cards\" button shows them.",
        "dm_header": "{game}, coup #{coup}:",
        "table_title": "{game} · coup #{coup}",
        "table_idle": "{game} · waiting for players",
        "bank": "Bank: {amount}",
        "pot": "Pot: {amount}",
        "seat_stack": "{stack}",
        "seat_stake": "stake {stake}",
        "seat_hidden": "🂠×{n}",
        "turn": "⏳ {names} — until {time} UTC",
        "turn_nodeadline": "⏳ {names}",
        "turn_private": "⏳ {names} — decide in the private chat, until {time} UTC",
        "turn_private_nodeadline": "⏳ {names} — decide in the private chat",
        "decide_private": "Your move at the table — choose here:",
        "no_seats": "Nobody is seated.",
        "stood_up": "{name} timed out twice and is stood up.",
        "timed_out": "⏰ Time is up: {names}.",
        "settled_title": "{game} · coup #{coup} settled",
        "result_line": "{name}: {delta}",
        "new_coup": "New coup",
        "my_cards_button": "🂠 My cards",
        "type_amount": "✏️ amount",
        "btn_other": "{label} {amount}",
        "phase": "Phase: {phase}",
        "wallet_low": "Your wallet is empty: /bonus gives daily chips.",
        "pick_private": "{label}: tick your cards, then confirm.",
        "see_private": "Choose in your private chat with the bot.",
    },
    "ru": {
        "welcome_group": "Привет! Я веду карточные игры на фишки. /newtable открывает стол, "
                         "/rules ИГРА — правила, /balance — ваши фишки.",
        "welcome_private": "Привет! Сюда я буду присылать ваши закрытые карты. Играют в группе: "
                           "добавьте меня туда и отправьте /newtable.",
        "dm_enabled": "Личные сообщения включены: карты будут приходить сюда.",
        "help": "/newtable — открыть стол\n/balance — ваши фишки\n/bonus — ежедневный бонус\n"
                "/top — самые богатые\n/history — ваши последние итоги\n"
                "/rules ИГРА — правила\n/verify — проверка шуза\n"
                "/language — ru/en\n/table — показать стол снова\n"
                "Админам: /settings, /closetable",
        "pick_game": "Какая игра?",
        "table_exists": "В этом чате уже есть стол: {game}.",
        "no_table": "Здесь нет стола. /newtable откроет его.",
        "table_opened": "{game}: стол открыт. Нажмите «Сесть», чтобы занять место.",
        "group_only": "Это работает в групповом чате.",
        "unknown_game": "Неизвестная игра. Выберите одну из: {games}",
        "balance": "{name}: {balance} фишек в кошельке, {on_table} на столе.",
        "top_title": "Самые богатые игроки:",
        "top_line": "{rank}. {name} — {total}",
        "top_empty": "Здесь ещё никто не играл.",
        "history_title": "{name}, ваши последние итоги:",
        "history_empty": "{name}, у вас здесь ещё нет итогов.",
        "history_coup": "{game} · кон №{coup}: {amount}",
        "history_other": "{what}: {amount}",
        "bonus_ok": "Ежедневный бонус: +{amount}. В кошельке: {balance}.",
        "bonus_taken": "Сегодняшний бонус уже получен.",
        "rules_missing": "Правил для игры {game} пока нет.",
        "rules_usage": "Использование: /rules ИГРА, одна из: {games}",
        "language_pick": "Язык этого чата:",
        "language_set": "Язык: русский.",
        "admins_only": "Это могут только администраторы чата.",
        "settings_show": "Настройки стола:\n{lines}\nИзменить: /settings КЛЮЧ ЗНАЧЕНИЕ",
        "settings_set": "Настройка {key} = {value}.",
        "settings_bad": "Нельзя установить: {error}",
        "settings_seated": "Настройки игры меняются, только пока за столом никого нет.",
        "table_closed": "Стол закрыт; все фишки вернулись в кошельки.",
        "verify_current": "Хеш текущего шуза (SHA-256 от порядок|соль):\n{commitment}",
        "verify_none": "Шуз ещё не тасовали.",
        "verify_revealed": "Последний законченный шуз:\nхеш {commitment}\nсоль {salt}\n"
                           "срез {cut}\nпорядок {order}",
        "verify_how": "Проверка: соедините порядок карт через пробел, добавьте \"|\" и соль и "
                      "посчитайте SHA-256 (echo -n \"ПОРЯДОК|СОЛЬ\" | sha256sum); результат "
                      "должен совпасть с хешем, показанным до среза. Сдача начинается с "
                      "позиции среза.",
        "stale": "Эта кнопка устарела.",
        "forged": "Эта кнопка недействительна.",
        "other_table": "Эта кнопка от другого стола.",
        "internal_error": "Что-то пошло не так, ничего не изменилось.",
        "done": "Готово",
        "no_cards": "Сейчас у вас нет закрытых карт.",
        "your_cards": "Ваши карты: {cards}",
        "ask_amount": "Ответьте в группе суммой от {min} до {max} в течение {seconds} с.",
        "ask_amount_any": "Ответьте в группе суммой в течение {seconds} с.",
        "amount_not_number": "{name}, отправьте целое число фишек (например, 50).",
        "amount_bounds": "{name}, сумма должна быть от {min} до {max}.",
        "amount_accepted": "{name}: {amount}.",
        "dm_blocked": "{name}, я не могу написать вам лично. Откройте {link} и нажмите «Start», "
                      "чтобы получать карты; пока их показывает кнопка «Мои карты».",
        "dm_header": "{game}, кон №{coup}:",
        "table_title": "{game} · кон №{coup}",
        "table_idle": "{game} · ждём игроков",
        "bank": "Банк: {amount}",
        "pot": "Банк (пот): {amount}",
        "seat_stack": "{stack}",
        "seat_stake": "ставка {stake}",
        "seat_hidden": "🂠×{n}",
        "turn": "⏳ {names} — до {time} UTC",
        "turn_nodeadline": "⏳ {names}",
        "turn_private": "⏳ {names} — решение в личном чате, до {time} UTC",
        "turn_private_nodeadline": "⏳ {names} — решение в личном чате",
        "decide_private": "Ваш ход за столом — выберите здесь:",
        "no_seats": "За столом никого.",
        "stood_up": "{name} дважды не успел и встаёт из-за стола.",
        "timed_out": "⏰ Время вышло: {names}.",
        "settled_title": "{game} · кон №{coup}: расчёт",
        "result_line": "{name}: {delta}",
        "new_coup": "Новый кон",
        "my_cards_button": "🂠 Мои карты",
        "type_amount": "✏️ сумма",
        "btn_other": "{label} {amount}",
        "phase": "Фаза: {phase}",
        "wallet_low": "Кошелёк пуст: /bonus даёт фишки раз в день.",
        "pick_private": "{label}: отметьте карты и подтвердите.",
        "see_private": "Выберите в личном чате с ботом.",
    },
}

REASONS: dict[str, dict[Reason, str]] = {
    "en": {
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
    },
    "ru": {
        Reason.NOT_SEATED: "Вы не сидите за этим столом.",
        Reason.ALREADY_SEATED: "Вы уже за столом.",
        Reason.TABLE_FULL: "Стол заполнен.",
        Reason.NOT_ENOUGH_PLAYERS: "Пока мало игроков.",
        Reason.NOT_YOUR_TURN: "Сейчас не ваш ход.",
        Reason.WRONG_PHASE: "Сейчас этого сделать нельзя.",
        Reason.STALE: "Эта кнопка устарела.",
        Reason.UNKNOWN_ACTION: "Неизвестное действие.",
        Reason.AMOUNT_OUT_OF_RANGE: "Сумма вне допустимых пределов.",
        Reason.INSUFFICIENT_CHIPS: "У вас не хватает фишек.",
        Reason.EXCEEDS_BANK: "Ставка больше, чем может покрыть банк.",
        Reason.BANCO_NOT_ALLOWED: "«Банко» можно только до любой другой ставки.",
        Reason.MUST_DRAW: "По правилам вы обязаны прикупить.",
        Reason.MUST_STAND: "По правилам вы обязаны остановиться.",
        Reason.CANNOT_DRAW: "Больше прикупать нельзя.",
        Reason.NOT_ALLOWED: "Так нельзя.",
        Reason.JOINING_FORBIDDEN: "Примазка к этой ставке запрещена.",
        Reason.NO_OPENERS: "Для открытия нужна пара валетов или лучше.",
        Reason.BAD_DISCARD: "Такой сброс невозможен.",
        Reason.IN_COUP: "Не во время кона; дождитесь расчёта.",
    },
}

# Button labels for action kinds; unknown kinds fall back to the kind itself.
ACTIONS: dict[str, dict[str, str]] = {
    "en": {
        "join": "🪑 Join", "leave": "🚪 Leave", "start": "▶️ Start", "cut": "✂️ Cut",
        "bid": "Bid", "stake": "Stake", "banco": "Banco!", "pass": "Pass", "draw": "Draw",
        "stand": "Stand", "retire": "Retire", "continue": "Continue", "decline": "Decline",
        "accept": "Accept", "post_bank": "Post bank", "baccara": "Baccara!",
        "join_stake": "Join stake", "forbid_joining": "No joining",
        "allow_joining": "Allow joining",
        "buy": "Buy a card", "open": "Open", "check": "Check", "bet": "Bet", "raise": "Raise",
        "call": "Call", "fold": "Fold", "discard": "Discard", "keep": "Keep", "ante": "Ante",
        "name_bank": "Name bank", "take_bank": "Take bank", "draw_card": "Draw a card",
        "turn": "Turn card", "show": "Show", "play_on": "Play on", "no_stake": "No stake",
    },
    "ru": {
        "join": "🪑 Сесть", "leave": "🚪 Встать", "start": "▶️ Начать", "cut": "✂️ Срезать",
        "bid": "Торг", "stake": "Ставка", "banco": "Банко!", "pass": "Пас", "draw": "Прикуп",
        "stand": "Хватит", "retire": "Уйти с банка", "continue": "Продолжить",
        "decline": "Отказаться", "accept": "Принять", "post_bank": "Поставить банк",
        "baccara": "Баккара!", "join_stake": "Примазаться", "forbid_joining": "Без примазки",
        "allow_joining": "Разрешить примазку", "buy": "Купить карту", "open": "Открыть",
        "check": "Чек", "bet": "Ставка", "raise": "Повысить", "call": "Уравнять",
        "fold": "Пас", "discard": "Сбросить", "keep": "Оставить", "ante": "Анте",
        "name_bank": "Назначить банк", "take_bank": "Взять банк", "draw_card": "Взять карту",
        "turn": "Открыть карту", "show": "Показать", "play_on": "Играть дальше",
        "no_stake": "Без ставки",
    },
}

# Event templates. Fields are the event's data; card lists are pretty-printed
# and player ids become names before formatting. An event without a template
# (or whose template names a missing field) is rendered generically.
EVENTS: dict[str, dict[str, str | tuple[str, ...]]] = {
    "en": {
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
        "shoe_committed": "New shoe shuffled; commitment {commitment}",
        "shoe_revealed": "Shoe finished; /verify shows its order and salt",
        "cut_requested": "{player} cuts the shoe",
        "cut_awaited": "{player} cuts the shoe",
        "shoe_cut": "{player} cut the shoe",
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
        "card_dealt": ("{player} gets {card}", "You get {card}; your cards: {cards}"),
        "card_dealt_face_down": "{player} gets a card face down",
        "card_bought": ("You buy {card}; your cards: {cards}", "{player} buys a card"),
        "baccara_declared": "{player} declares baccara: {cards}",
        "banker_baccara": ("The banker {player} has baccara", "The banker has baccara"),
        "checked": "{player} checks",
        "folded": "{player} folds",
        "discarded": "{player} discards {count}",
        "hands_thrown_in": "Nobody opened: hands thrown in",
        "openers_shown": ("{player} shows the openers: {cards}", "{player} shows the openers"),
        "antes_posted": "Antes posted: {antes}",
        "stood_up": "{player} timed out twice and is stood up",
        "timed_out": ("{player} timed out: {action}", "{player} timed out"),
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
        "cards_drawn": ("You draw {cards}; your hand: {hand}", "You draw {cards}"),
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
        "shoe_extended": "The used cards go under the shoe; commitment {commitment}",
        "showing": (
            "{player} shows {cards}: {value}; {possible}",
            "{player} shows {cards}: {value}",
        ),
        "stake_declined": "{player} does not join",
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
        "third_card_dealt": "{player} gets a third card {card}, points: {points}",
    },
    "ru": {
        "player_joined": "{player} садится за стол с {stack}",
        "player_left": ("{player} уходит из-за стола с {stack}", "{player} уходит из-за стола"),
        "player_leaving": "{player} уйдёт после этого кона",
        "leaving": "{player} уйдёт после этого кона",
        "leaving_after_coup": "{player} уйдёт после этого кона",
        "play_started": "{by} начинает игру",
        "auction_opened": "Торг за банк: от {min_bid}",
        "bid_placed": "{player}: заявка на банк {amount}",
        "bid_passed": "{player}: пас",
        "auction_failed": "Никто не взял банк",
        "banker_chosen": "{player} держит банк",
        "bank_offered": (
            "{player} предлагают банк {amount}",
            "{player} предлагают держать банк (не меньше {min_bank})",
            "Банк предлагают игроку {player}",
        ),
        "bank_named": "{player} ставит банк {bank}",
        "bank_declined": "{player} отказывается от банка",
        "bank_refused_by_all": "Все отказались от банка: новый торг",
        "bank_passed": (
            "{player} берёт банк: {amount}",
            "Банк переходит от {src} к {dst}",
            "{from_player} передаёт банк дальше",
            "Банк переходит дальше",
        ),
        "banker_retired": "{player} снимает банк: {amount}",
        "banker_continued": "{player} держит банк дальше: {bank}",
        "shoe_committed": "Новый шуз перетасован; хеш {commitment}",
        "shoe_revealed": "Шуз закончен; /verify покажет порядок и соль",
        "cut_requested": "Шуз срезает {player}",
        "cut_awaited": "Шуз срезает {player}",
        "shoe_cut": "{player} срезал шуз",
        "cards_burned": "Сожжены: {cards}",
        "staking_opened": "Талья {coup}: банк {bank}, делайте ставки",
        "coup_started": ("Талья #{coup}: {banker} держит банк {bank}", "Талья #{coup} начинается"),
        "hand_started": "Раздача #{hand}",
        "stake_placed": "{player} ставит {amount}",
        "banco_called": "{player}: «Банко!» ({amount})",
        "punter_passed": "{player}: пас",
        "punter_skipped": "{player} пропускает",
        "coup_void": "Ставок нет: кон не состоялся",
        "cards_dealt": ("Карты сданы: понтёру {playing} и банкомёту {banker}", "Карты сданы"),
        "natural_shown": (
            "{player}: натуральная {points} — {cards}",
            "{player}: очко! {cards}",
            "Натуральная: {cards}",
        ),
        "punter_drew": "{player} прикупает карту",
        "punter_stood": "{player}: хватит",
        "banker_drew": (
            "{player} (банкомёт) прикупает {card}, очков: {points}",
            "{player} (банкомёт) прикупает карту",
        ),
        "banker_stood": "{player} (банкомёт): хватит",
        "hand_shown": ("{player} открывает {cards}: {value}", "{player} открывает {cards}"),
        "card_dealt": ("{player} получает {card}", "Вам пришла {card}; ваши карты: {cards}"),
        "card_dealt_face_down": "{player} получает закрытую карту",
        "card_bought": ("Вы купили {card}; ваши карты: {cards}", "{player} покупает карту"),
        "baccara_declared": "{player} объявляет баккара: {cards}",
        "banker_baccara": ("У банкомёта {player} баккара", "У банкомёта баккара"),
        "checked": "{player}: чек",
        "folded": "{player}: пас",
        "discarded": "{player} меняет карт: {count}",
        "hands_thrown_in": "Никто не открыл: пересдача",
        "openers_shown": (
            "{player} показывает карты открытия: {cards}",
            "{player} показывает карты открытия",
        ),
        "antes_posted": "Анте внесено: {antes}",
        "stood_up": "{player} дважды не успел сходить и встаёт из-за стола",
        "timed_out": ("{player}: время вышло, за него — «{action}»", "{player}: время вышло"),
        "coup_settled": ("Расчёт ({outcome}): {results}", "Расчёт: {results}", "Расчёт: {net}"),
        "table_idle": ("Ждём игроков ({reason})", "Ждём игроков"),
        "bank_won": "{player} выигрывает банк: {amount}",
        "hand_seen": "Ваши карты: {cards}",
        "card_drawn": "Вы прикупили {card}",
        "cards_received": "Ваши карты: {cards}",
        "cards_drawn": ("Вы прикупили {cards}; на руках: {hand}", "Вы прикупили {cards}"),
        "bank_ended": (
            "Банк {player} закрыт ({reason}), в банке {amount}",
            "Банк {player} закрыт, в банке {amount}",
        ),
        "bank_posted": "{player} ставит банк {amount}",
        "bank_skipped": (
            "{player} не может поставить банк ({reason})",
            "{player} не может поставить банк",
        ),
        "banker_draw": "Жребий на банк: {draws}",
        "card_turned": "Карта понтёру {punter}: {card}",
        "cards_shown": "{player} открывает {cards}",
        "extra_shoe_started": (
            "Банкомёт {banker} играет ещё один шуз (осталось: {extra_shoes_left})",
            "Банкомёт играет ещё один шуз",
        ),
        "hands_shown": (
            "{playing}: {punters}, очков: {punter_points}; "
            "банкомёт: {banker}, очков: {banker_points}",
            "Карты: {hands}",
        ),
        "joining_open": "К ставке {punter} можно примазаться",
        "sat_out": "{player} пропускает талью",
        "shoe_extended": "Сыгранные карты уходят под шуз; хеш {commitment}",
        "showing": ("{player}: {cards}, {value}; {possible}", "{player}: {cards}, {value}"),
        "stake_declined": "{player} не примазывается",
        "stake_joined": "{player} примазывается к {punter}: {amount}",
        "stake_skipped": ("{player} пропускает ({reason})", "{player} пропускает"),
        "stood": "{player}: хватит",
        "tenure_ended": (
            "Банкомёт {banker} сдаёт банк ({reason}); в банке {bank}",
            "Банкомёт сдаёт банк",
        ),
        "bet_made": "{player} ставит {to}",
        "raise_made": "{player} повышает до {to}",
        "open_made": "{player} открывает ставкой {to}",
        "called": "{player} уравнивает: {amount}",
        "third_card_dealt": "{player} получает третью карту {card}, очков: {points}",
    },
}

# Labels of view.info and view.my_info keys (the table message, a player's DM and pop-up).
INFO: dict[str, dict[str, str]] = {
    "en": {
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
    },
    "ru": {
        "decks": "Колод", "burn": "Сжигается карт", "burned": "Сожжены",
        "cards_left": "Карт в шузе", "discards": "В отбое", "commitment": "Хеш шуза",
        "commitments": "Хеши шузов", "extra_shoes": "Лишних шузов",
        "min_stake": "Мин. ставка", "min_bank": "Мин. банк",
        "banker": "Банкомёт", "last_banker": "Прошлый банкомёт",
        "offered_to": "Банк предложен", "bids": "Заявки на банк", "staked": "Поставлено",
        "uncovered": "Банк не покрыт на", "stake_room": "Можно ещё поставить",
        "can_still_stake": "Можно ещё поставить", "bank_setting": "Размер банка",
        "bank_start": "Начальный банк", "bank_limit": "Банк переходит при",
        "punter": "Понтёр", "stake_total": "Ставки на его карту",
        "joining": "Примазка разрешена", "joining_forbidden": "Примазка запрещена",
        "forbidding": "Против примазки",
        "playing": "Играет руку", "punter_cards": "Карт у понтёра",
        "draw_order": "Очерёдность прикупа", "declarer": "Баккара объявил",
        "last_coup": "Прошлый кон", "last_results": "Итоги прошлого кона",
        "small_bet": "Малая ставка", "big_bet": "Большая ставка", "structure": "Лимит",
        "ante": "Анте", "button": "Сдаёт", "opener": "Открыл",
        "passed_deals": "Пересдач", "ace_four": "С тузом можно менять четыре",
        "drew": "Прикупили", "showing": "На виду",
        "points": "Ваши очки", "total": "Ваши очки", "hand": "Ваша комбинация",
        "hint": "По таблице",
    },
}

# Phases, roles, statuses and word-valued facts. A key "context:value" (``phase:draw``,
# ``hint:draw``) wins over the plain value where one English word means two things.
# English phases stay the phase names with spaces: the e2e policies read them back.
WORDS: dict[str, dict[str, str]] = {
    "en": {
        "starting_grant": "starting chips", "daily_bonus": "daily bonus",
        # phases
        "phase:idle": "idle", "phase:auction": "auction", "phase:cut": "cut",
        "phase:staking": "staking", "phase:void_choice": "void choice",
        "phase:punter_draw": "punter draw", "phase:banker_draw": "banker draw",
        "phase:bank_offer": "bank offer", "phase:drawing": "drawing",
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
        "structure:fixed": "fixed limit", "structure:pot": "pot limit",
        "hand:banker": "banker", "hand:punters": "punters",
        "outcome:banker": "banker wins", "outcome:punters": "punters win",
        "outcome:standoff": "standoff",
    },
    "ru": {
        "starting_grant": "стартовые фишки", "daily_bonus": "ежедневный бонус",
        "phase:idle": "ожидание", "phase:auction": "торг за банк", "phase:cut": "срез",
        "phase:staking": "ставки", "phase:void_choice": "банкомёт решает, держать ли банк",
        "phase:punter_draw": "прикуп понтёра", "phase:banker_draw": "прикуп банкомёта",
        "phase:bank_offer": "передача банка", "phase:drawing": "прикуп",
        "phase:post_bank": "новый банк", "phase:post": "банкомёт ставит банк",
        "phase:joining": "примазка", "phase:banker": "прикуп банкомёта",
        "phase:waiting": "ожидание", "phase:betting": "торговля", "phase:draw": "обмен",
        "banker": "банкомёт", "punter": "понтёр", "dealer": "сдающий", "opener": "открыл",
        "dealer opener": "сдающий, открыл",
        "to act": "ходит", "plays the hand": "играет руку", "leaving": "уходит",
        "baccara": "баккара", "sits out": "пропускает", "forbids joining": "против примазки",
        "staked": "ставка сделана", "joined": "примазался", "to cut": "срезает",
        "to post": "ставит банк", "to stake": "ставит", "21": "очко", "stood": "хватит",
        "bust": "перебор", "all-in": "ва-банк", "folded": "пас", "in hand": "в игре",
        "waiting": "ждёт", "no chips": "без фишек",
        "hint:draw": "прикупать", "hint:stand": "не прикупать",
        "structure:fixed": "фиксированный", "structure:pot": "пот-лимит",
        "hand:banker": "банкомёт", "hand:punters": "понтёры",
        "outcome:banker": "выиграл банкомёт", "outcome:punters": "выиграли понтёры",
        "outcome:standoff": "ничья",
    },
}

# Outcomes and reasons inside event data (``outcome``, ``reason``) and poker's hand words.
VALUES: dict[str, dict[str, str]] = {
    "en": {
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
    },
    "ru": {
        "win": "выигрыш", "loss": "проигрыш", "lose": "проигрыш", "push": "ничья",
        "tie_loss": "равенство, проигрыш", "natural_win": "натуральная, выигрыш",
        "natural_loss": "натуральная, проигрыш", "banker_natural": "натуральная у банкомёта",
        "six_six_split": "шесть на шесть, пополам", "natural": "очко",
        "banker_21": "очко у банкомёта", "banker_bust": "перебор у банкомёта",
        "both_bust": "перебор у обоих", "bust": "перебор",
        "not_enough_players": "мало игроков", "no_punters": "нет понтёров",
        "bank_broken": "банк сорван", "broken": "банк сорван", "left": "банкомёт ушёл",
        "banker_left": "банкомёт ушёл", "punter_baccara": "баккара у понтёра",
        "no_chips": "нет фишек", "insufficient_chips": "не хватает фишек",
        "nobody_can_bank": "некому держать банк", "nobody_can_stake": "некому ставить",
        "bank_covered": "банк уже покрыт", "tripled": "банк утроился",
    },
}

# Poker hand names (games/poker/ranking.py describes hands in English): Russian by rank.
_RANKS_EN = ("deuce", "trey", "four", "five", "six", "seven", "eight", "nine", "ten", "jack",
             "queen", "king", "ace")
_PLURALS_EN = ("deuces", "treys", "fours", "fives", "sixes", "sevens", "eights", "nines",
               "tens", "jacks", "queens", "kings", "aces")
_RU_NOM = ("двойка", "тройка", "четвёрка", "пятёрка", "шестёрка", "семёрка", "восьмёрка",
           "девятка", "десятка", "валет", "дама", "король", "туз")
_RU_GEN = ("двойки", "тройки", "четвёрки", "пятёрки", "шестёрки", "семёрки", "восьмёрки",
           "девятки", "десятки", "валета", "дамы", "короля", "туза")
_RU_PL = ("двойки", "тройки", "четвёрки", "пятёрки", "шестёрки", "семёрки", "восьмёрки",
          "девятки", "десятки", "валеты", "дамы", "короли", "тузы")
_RU_PL_GEN = ("двоек", "троек", "четвёрок", "пятёрок", "шестёрок", "семёрок", "восьмёрок",
              "девяток", "десяток", "валетов", "дам", "королей", "тузов")
_R = "|".join(_RANKS_EN)
_P = "|".join(_PLURALS_EN)
_HANDS_RU: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(f"^{pattern}$"), text) for pattern, text in (
        (f"pair of ({_P})", "пара {g0}"),
        (f"two pair, ({_P}) and ({_P})", "две пары: {p0} и {p1}"),
        (f"three ({_P})", "тройка {g0}"),
        (f"four ({_P})", "каре {g0}"),
        (f"full house, ({_P}) over ({_P})", "фулл-хаус: тройка {g0} и пара {g1}"),
        ("royal flush", "роял-флеш"),
        (f"straight flush, ({_R}) high", "стрит-флеш до {s0}"),
        (f"flush, ({_R}) high", "флеш до {s0}"),
        (f"straight, ({_R}) high", "стрит до {s0}"),
        (f"high card, ({_R}) high", "старшая карта — {n0}"),
        (f"({_R}) high", "старшая карта — {n0}"),
        ("possible straight", "возможен стрит"),
        ("possible flush", "возможен флеш"),
        ("possible full house", "возможен фулл-хаус"),
    ))


def _rank_of(word_: str) -> int:
    return _PLURALS_EN.index(word_) if word_ in _PLURALS_EN else _RANKS_EN.index(word_)


def hand_name(lang: str, text: str) -> str | None:
    """A poker hand description in ``lang`` ("pair of queens" -> "пара дам"); None if unknown."""
    for pattern, template in _HANDS_RU:
        m = pattern.match(text)
        if m is None:
            continue
        if _lang(lang) == "en":
            return text
        ranks = [_rank_of(g) for g in m.groups()]
        fields = {f"{key}{i}": table[r] for i, r in enumerate(ranks)
                  for key, table in (("n", _RU_NOM), ("g", _RU_PL_GEN), ("p", _RU_PL),
                                     ("s", _RU_GEN))}
        return template.format(**fields)
    return None


def lang_of(code: str | None, default: str = "en") -> str:
    """Our language for a Telegram ``language_code`` (ru for ru/uk/be, else en)."""
    if code and code.split("-")[0].lower() in ("ru", "uk", "be"):
        return "ru"
    if code and code.split("-")[0].lower() == "en":
        return "en"
    return default if default in LANGUAGES else "en"


def _lang(lang: str) -> str:
    return lang if lang in LANGUAGES else "en"


def t(lang: str, key: str, /, **params: Any) -> str:
    """The text ``key`` in ``lang``, formatted with ``params``."""
    return TEXTS[_lang(lang)][key].format(**params)


def game_name(lang: str, game: str) -> str:
    """A game's display name."""
    return GAME_NAMES[_lang(lang)].get(game, game)


def reason_text(lang: str, reason: Reason) -> str:
    """The sentence for an engine refusal."""
    return REASONS[_lang(lang)].get(reason, REASONS[_lang(lang)][Reason.NOT_ALLOWED])


def action_label(lang: str, kind: str) -> str:
    """The button label of an action kind."""
    found = ACTIONS[_lang(lang)].get(kind)
    return found if found is not None else kind.replace("_", " ").capitalize()


def has_word(lang: str, value: str, context: str = "") -> bool:
    """True when ``value`` has an explicit translation (as ``context:value`` or plain)."""
    words = WORDS[_lang(lang)]
    return (bool(context) and f"{context}:{value}" in words) or value in words


def word(lang: str, value: str, context: str = "") -> str:
    """A translated phase, role, status or word-valued fact; ``context`` (``phase``,
    ``hint``...) picks the meaning where one word has two. Unknown words pass through."""
    words = WORDS[_lang(lang)]
    if context and f"{context}:{value}" in words:
        return words[f"{context}:{value}"]
    return words.get(value, value.replace("_", " "))


def info_label(lang: str, key: str) -> str:
    """The label of a view.info or view.my_info key."""
    return INFO[_lang(lang)].get(key, key.replace("_", " ").capitalize())


def value_text(lang: str, value: str, key: str = "") -> str | None:
    """The translation of a word-valued string (a hint, an outcome, a poker hand), or None
    when it is not a word we know (a name, a hash): such strings are shown as they are."""
    lang = _lang(lang)
    if key and f"{key}:{value}" in WORDS[lang]:
        return WORDS[lang][f"{key}:{value}"]
    if value in VALUES[lang]:
        return VALUES[lang][value]
    if key == "action" and value in ACTIONS[lang]:
        return ACTIONS[lang][value]  # the safe default a timeout applied
    return hand_name(lang, value)


def is_card(value: Any) -> bool:
    """True for a two-character card string like ``"Ah"``."""
    return (isinstance(value, str) and len(value) == 2 and value[0] in "23456789TJQKA"
            and value[1] in "cdhs")


# Data keys whose int value is a player id (shown as his name).
PLAYER_KEYS = ("player", "banker", "by", "winner", "caller", "punter", "opener", "declarer",
               "playing", "cutter", "dealer", "from_player", "to_player", "offered_to",
               "last_banker", "button", "src", "dst", "gathered_by", "forbidding",
               "draw_order", "players", "winners")
# Data keys shown as a signed amount: what a player won (+) or lost (-).
SIGNED_KEYS = ("net", "banker_net")
_NUMBERED = {"en": {"points": "{n} pts", "total": "{n} pts", "stake": "stake {n}"},
             "ru": {"points": "очков: {n}", "total": "очков: {n}", "stake": "ставка {n}"}}


def _player_dict(value: dict[str, Any], names: dict[int, str], lang: str | None) -> str:
    """One player's row (a result, a shown hand): "Ann: 10♥ A♠ +20 (win, 5 pts)"."""
    head = format_value(value["player"], names, "player")
    main: list[str] = []
    extra: list[str] = []
    for k, v in value.items():
        if k == "player":
            continue
        text = format_value(v, names, k, lang)
        if k in ("cards", "card", "amount", *SIGNED_KEYS):
            main.append(text)
        elif k == "outcome":
            extra.insert(0, text)
        elif isinstance(v, int) and k in _NUMBERED["en"]:
            extra.append(_NUMBERED[lang or "en"][k].format(n=v))
        else:
            extra.append(f"{word(lang or 'en', k)} {text}")
    body = " ".join(main) + (f" ({', '.join(extra)})" if extra else "")
    return f"{head}: {body.strip()}" if body.strip() else head


def format_value(value: Any, names: dict[int, str], key: str = "",
                 lang: str | None = None) -> str:
    """Human form of one event/info value: cards pretty, player ids named, lists joined;
    with ``lang``, word-valued strings (outcomes, hints, poker hands) are translated."""
    if is_card(value):
        return pretty(value)
    if isinstance(value, bool):
        return "✓" if value else "✗"
    if isinstance(value, int) and key in SIGNED_KEYS:
        return f"+{value}" if value > 0 else str(value)
    if isinstance(value, int | str) and (key in PLAYER_KEYS or key.endswith("player")) \
            and str(value).lstrip("-").isdigit() and int(value) in names:
        return names[int(value)]
    if isinstance(value, str) and lang is not None and key not in ("name", "commitment", "salt"):
        found = value_text(lang, value, key)
        return value if found is None else found
    if isinstance(value, list | tuple):
        sep = "; " if any(isinstance(v, dict) for v in value) else " "
        if lang is not None and any(isinstance(v, str) and not is_card(v) for v in value):
            sep = ", "
        return sep.join(format_value(v, names, key, lang) for v in value)
    if isinstance(value, dict):
        if "player" in value:
            return _player_dict(value, names, lang)
        parts = []
        for k, v in value.items():
            who = int(k) if str(k).lstrip("-").isdigit() else k
            label = format_value(who, names, "player")
            parts.append(f"{label} {format_value(v, names, key or str(k), lang)}")
        return ", ".join(parts)
    return str(value)


class _Fields(dict[str, str]):
    def __missing__(self, key: str) -> str:
        raise KeyError(key)


def templates(lang: str, kind: str) -> tuple[str, ...]:
    """The templates of an event kind, most specific first."""
    found = EVENTS[_lang(lang)].get(kind)
    if found is None:
        return ()
    return (found,) if isinstance(found, str) else found


def event_text(lang: str, event: Event, names: dict[int, str]) -> str:
    """One line describing ``event`` (already filtered for its reader): the first of its
    templates whose fields the event carries, else a generic line of its data."""
    lang = _lang(lang)
    fields = _Fields({k: format_value(v, names, k, lang) for k, v in event.data.items()})
    for template in templates(lang, event.kind):
        try:
            return string.Formatter().vformat(template, (), fields)
        except (KeyError, IndexError, ValueError):
            continue
    head = word(lang, event.kind)
    if not fields:
        return head
    body = ", ".join(f"{word(lang, k)} {v}" for k, v in fields.items() if k != "commitment")
    return f"{head}: {body}" if body else head


def choice_label(lang: str, choice: str) -> str:
    """A choice button's label: cards pretty-printed, words translated."""
    tokens = choice.replace(",", " ").split()
    if tokens and all(is_card(x) for x in tokens):
        return pretty_all_tokens(tokens)
    return word(lang, choice)


def pretty_all_tokens(tokens: list[str]) -> str:
    """Cards in human form, space separated."""
    return " ".join(pretty(x) for x in tokens)
