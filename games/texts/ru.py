"""Russian texts of the games: names, event templates, labels of facts and feats,
words, values and button labels (:class:`games.engine.GameTexts`, assembled in
:mod:`games.texts`)."""

from __future__ import annotations

GAME_NAMES: dict[str, str] = {
    "chemin_de_fer": "Шмен де фер", "baccarat": "Баккара", "banchok": "Польский банчок",
    "twenty_one": "Очко", "draw_poker": "Покер с обменом", "stud_poker": "Стад-покер",
}

ACTIONS: dict[str, str] = {
    "join": "🪑 Сесть", "leave": "🚪 Встать", "start": "▶️ Начать", "cut": "✂️ Срезать",
    "bid": "Торг", "stake": "Ставка", "banco": "Банко!", "pass": "Пас", "draw": "Прикуп",
    "stand": "Хватит", "retire": "Уйти с банка", "continue": "Продолжить",
    "decline": "Отказаться", "accept": "Принять", "post_bank": "Поставить банк",
    "baccara": "Баккара!", "join_stake": "Примазаться", "forbid_joining": "Без примазки",
    "allow_joining": "Разрешить примазку", "buy": "Купить карту", "open": "Открыть",
    "check": "Чек", "bet": "Ставка", "raise": "Повысить", "call": "Уравнять",
    "raise:amount": "Повысить до {amount}", "bet:amount": "Ставка {amount}",
    "fold": "Пас", "discard": "Сбросить", "keep": "Оставить", "ante": "Анте",
    "name_bank": "Назначить банк", "take_bank": "Взять банк", "draw_card": "Взять карту",
    "turn": "Открыть карту", "show": "Показать", "play_on": "Играть дальше",
    "no_stake": "Без ставки",
}

EVENTS: dict[str, str | tuple[str, ...]] = {
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
    "shoe_committed": "🔒 Новый шуз перетасован и зафиксирован",
    "shoe_revealed": "Шуз закончен; /verify докажет его карты",
    "cards_proven": "🔐 Доказательство ваших карт в раздаче {coup} (сохраните в файл и "
                    "проверьте: python -m games.verify FILE):\n"
                    "<blockquote expandable>{record}</blockquote>",
    "cut_requested": "Срезать шуз предстоит {player}",
    "cut_awaited": "Срезать шуз предстоит {player}",
    "shoe_cut": "{player} срезает шуз",
    "cards_burned": "Сожжены: {cards}",
    "staking_opened": "Кон №{coup}: банк {bank}, делайте ставки",
    "coup_started": ("Кон №{coup}: {banker} держит банк {bank}", "Кон №{coup} начинается"),
    "hand_started": "Раздача №{coup} начинается",
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
        "{player} (банкомёт) прикупает {card}",
        "{player} (банкомёт) прикупает карту",
    ),
    "banker_stood": "{player} (банкомёт): хватит",
    "hand_shown": ("{player} открывает {cards}: {value}", "{player} открывает {cards}"),
    "card_dealt": ("{player} получает {card}", "Вам пришла {card}"),
    "card_dealt_face_down": "{player} получает закрытую карту",
    "card_bought": ("Вы купили {card}; ваши карты: {cards}", "{player} покупает карту"),
    "baccara_declared": "{player} объявляет баккара: {cards}",
    "banker_baccara": ("У банкомёта {player} баккара", "У банкомёта баккара"),
    "checked": "{player}: чек",
    "folded": "{player}: пас",
    "discarded": "{player} меняет {count_cards}",
    "hands_thrown_in": "Никто не открыл: пересдача",
    "table_closed": "Стол закрыт (незаконченный кон аннулирован). В кошельки: {returned}",
    "openers_shown": (
        "{player} показывает карты открытия: {cards}",
        "{player} показывает карты открытия",
    ),
    "antes_posted": (
        "Снова анте на новую сдачу: {antes}; всего в банке от каждого: {totals}",
        "Анте внесено: {antes}",
    ),
    "stood_up": (
        "🚪 {player}: фишек меньше, чем {least}, — встаёт из-за стола",
        "{player} дважды не успел сходить и встаёт из-за стола",
    ),
    "timed_out": ("⏰ {player}: время вышло, за него — «{action}»", "⏰ {player}: время вышло"),
    "coup_settled": (
        "Нет за столом, встают: {absent}. Сдача аннулирована, анте возвращено: {antes}",
        "Расчёт ({outcome}): {results}", "Расчёт: {results}", "Расчёт: {net}", "Расчёт",
    ),
    "table_idle": ("Ждём игроков ({reason})", "Ждём игроков"),
    "bank_won": "{player} выигрывает банк: {amount}",
    "hand_seen": "Ваши карты: {cards}",
    "card_drawn": "Вы прикупили {card}",
    "cards_received": "Ваши карты: {cards}",
    "cards_drawn": "Вы прикупили {cards}",
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
    "shoe_extended": "🔒 Сыгранные карты уходят под шуз, шуз зафиксирован заново",
    "showing": ("{player}: {cards}, {value}; {possible}", "{player}: {cards}, {value}"),
    "stake_declined": "{player} пропускает кон",
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
    "stub_rebuilt": "🔒 Колода кончилась: сброс ({cards_cards}) перетасован в новую, "
                    "она зафиксирована",
    "banker_leaving": "{player} уйдёт, когда его банк опустеет или утроится",
    "bank_passed_over": "{player} пропускает банк и остаётся за столом",
    "bank_offered_again": "Больше никто не берёт банк: {player} может держать его снова",
    "bank_not_taken": "Никто не взял банк в {amount}: нажмите «Начать», чтобы предложить снова",
    "bank_unaffordable": (
        "Ни у кого за столом не хватает фишек на банк в {amount}: "
        "стол ждёт игрока, у которого они есть"
    ),
    "third_card_dealt": "{player} получает третью карту {card}",
    "third_card_points": "Ваша третья карта {card}: {points_points}",
    "baccara_passed": "{player} играет дальше",
}

INFO: dict[str, str] = {
    "decks": "Колод", "burn": "Сжигается карт", "burned": "Сожжены",
    "cards_left": "Карт в шузе", "discards": "В отбое", "commitment": "Хеш шуза",
    "commitments": "Хеши шузов", "extra_shoes": "Лишних шузов",
    "min_stake": "Мин. ставка", "min_bank": "Мин. банк",
    "banker": "Банкомёт", "last_banker": "Прошлый банкомёт",
    "offered_to": "Банк предложен", "bids": "Заявки на банк", "staked": "Поставлено",
    "uncovered": "Банк не покрыт на", "stake_room": "Можно ещё поставить",
    "can_still_stake": "Можно ещё поставить", "bank_setting": "Размер банка",
    "bank_start": "Начальный банк", "bank_limit": "Банк переходит при",
    "punter": "Понтёр", "stake_total": "Поставлено на карту понтёра",
    "joining": "Примазка разрешена", "joining_forbidden": "Примазка запрещена",
    "forbidding": "Против примазки",
    "playing": "Играет руку", "punter_cards": "Карт у понтёра",
    "draw_order": "Очерёдность прикупа", "declarer": "Баккара объявил",
    "last_coup": "Прошлый кон", "last_results": "Итоги прошлого кона",
    "small_bet": "Малая ставка", "big_bet": "Большая ставка", "structure": "Лимит",
    "ante": "Анте", "button": "Сдаёт", "opener": "Открыл",
    "passed_deals": "Пересдач", "ace_four": "С тузом можно менять четыре",
    "drew": "Прикупили", "showing": "На виду",
    "points": "Ваши очки", "total": "Ваши очки", "hand": "Ваша комбинация", "bust": "Перебор",
    "hint": "По таблице",
}

VALUES: dict[str, str] = {
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
    "bank_covered": "банк уже покрыт", "tripled": "банк утроился", "retired": "снял банк",
    "shoe_exhausted": "шуз кончился",
    "nobody_took_bank": "никто не взял банк",
}

NUMBERED: dict[str, str] = {"points": "{n_points}", "total": "{n_points}", "stake": "ставка {n}"}


WORDS: dict[str, str] = {
    # один кон с номером, как его называют заголовки («кон №4»; у покера — POKER_WORDS)
    "deal_no": "кон №{n}",
    "phase:idle": "ждём игроков", "phase:auction": "торг за банк", "phase:cut": "срез",
    "phase:staking": "ставки", "phase:void_choice": "банкомёт решает, держать ли банк",
    "phase:punter_draw": "прикуп понтёра", "phase:banker_draw": "прикуп банкомёта",
    "phase:bank_offer": "передача банка", "phase:drawing": "прикуп",
    "phase:declaring": "баккара?",
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
    "forbid_joining": "Без примазки", "allow_joining": "С примазкой",
    "structure:fixed": "фиксированный", "structure:pot": "пот-лимит",
    "hand:banker": "банкомёт", "hand:punters": "понтёры",
    "outcome:banker": "выиграл банкомёт", "outcome:punters": "выиграли понтёры",
    "outcome:standoff": "ничья",
}

POKER_WORDS: dict[str, str] = {"deal_no": "раздача №{n}"}
"""Слова покера поверх :data:`WORDS`: в нём раздачи, а не коны."""

# /settings: what each game setting is, and its unit (a noun of NOUN_FORMS, or the
# words it takes).
SETTINGS: dict[str, tuple[str, str]] = {
    "min_stake": ("наименьшая ставка", "chip"),
    "decks": ("колод в шузе", "deck"),
    "burn": ("карт сжигается в начале шуза", "card"),
    "bank": ("банк, который ставит банкир", "chip"),
    "joining": ("к ставке понтёра можно примазаться", "on | off"),
    "small_bet": ("малая ставка; большая — вдвое больше", "chip"),
    "structure": ("ставки: фиксированный лимит или пот-лимит", "fixed | pot"),
    "ante": ("анте каждого игрока", "chip"),
    "ace_four": ("с тузом можно сменить четыре карты", "on | off"),
}

# Что сыгранный кон засчитывает игроку сверх выигрыша (games.engine.Settlement.feats),
# как их перечисляет его статистика: за подписью следует число.
FEATS: dict[str, str] = {
    "natural": "Натуральные", "banco": "Объявленные банко", "banco_won": "Выигранные банко",
    "baccara": "Объявленные баккара", "extra_shoe": "Лишние шузы за баккара",
    "bust": "Переборы", "joined": "Примазки", "bank_tripled": "Утроенные банки",
    "voluntary": "Добровольные входы в банк", "opened": "Открытые джекпоты",
    "showdown": "Вскрытия", "showdown_won": "Выигранные вскрытия",
    "banco_natural": "Банко, выигранные натуральной девяткой",
    "sweep": "Коны, где взяты все ставки", "bank_broken": "Сорванные банки",
    "three_sevens": "Три семёрки", "five_card_21": "21 с пяти карт",
    "opened_won": "Открытые и выигранные джекпоты",
}

# Подписи игры поверх FEATS, где её правила называют их иначе.
GAME_FEATS: dict[str, dict[str, str]] = {"twenty_one": {"natural": "21 с двух карт"}}

# Достижения каждой игры (games.engine.Achievement, по ключу): название и за что оно,
# как их читает строка о нём («Банко с девяткой — натуральная девятка, выигравшая банко»).
_POKER_HANDS: dict[str, tuple[str, str]] = {
    "full_house": ("Фулл-хаус", "фулл-хаус или старше на вскрытии"),
    "four": ("Каре", "каре или старше на вскрытии"),
    "straight_flush": ("Стрит-флеш", "стрит-флеш на вскрытии"),
    "royal_flush": ("Роял-флеш", "роял-флеш на вскрытии"),
}
_NATURALS: dict[str, tuple[str, str]] = {
    "first_natural": ("Первая натуральная", "восемь или девять очков с двух первых карт"),
    "naturals_10": ("Десять натуральных", "натуральная в десятый раз"),
}
_BANK_RUNS: dict[str, tuple[str, str]] = {
    "bank_5": ("Крепкий банкомёт", "банк, удержанный пять конов подряд"),
    "bank_10": ("Железный банк", "банк, удержанный десять конов подряд"),
}
GAME_ACHIEVEMENTS: dict[str, dict[str, tuple[str, str]]] = {
    "chemin_de_fer": {
        **_NATURALS,
        "banco_won": ("Банко!", "объявленное и выигранное банко"),
        "bancos_5": ("Игрок на банко", "пять выигранных банко"),
        "banco_natural": ("Банко с девяткой", "натуральная девятка, выигравшая банко"),
        **_BANK_RUNS,
    },
    "baccarat": {
        **_NATURALS,
        "baccara": ("Баккара!", "баккара, объявленная на нуле"),
        "extra_shoe": ("Ещё один шуз", "баккара у банкомёта, дающая ему ещё один шуз"),
        "sweep": ("Подчистую", "банкомёт взял все ставки кона, а понтёров было двое "
                               "или больше"),
        **_BANK_RUNS,
    },
    "banchok": {
        "banco_won": ("Ва-банк!", "выигранная ставка на весь банк"),
        "bank_broken": ("Сорвал банк", "выигрыш на карте, опустошившей банк"),
        "joined_10": ("Примазчик", "десять примазок"),
        "bank_tripled": ("Утроил банк", "банк, выросший втрое"),
        "bank_10": ("Крепкий банкомёт", "банк, удержанный десять конов подряд"),
        "bank_20": ("Железный банк", "банк, удержанный двадцать конов подряд"),
    },
    "twenty_one": {
        "first_natural": ("Первое очко", "21 с двух первых карт"),
        "naturals_10": ("Десятое очко", "21 с двух карт в десятый раз"),
        "three_sevens": ("Три семёрки", "21 из трёх семёрок"),
        "five_card_21": ("21 с пяти карт", "ровно 21 на пяти картах"),
        **_BANK_RUNS,
    },
    "draw_poker": {
        "opened_won": ("Открыл и взял", "открытый и выигранный джекпот"),
        "opened_won_10": ("Хозяин джекпотов", "десять открытых и выигранных джекпотов"),
        **_POKER_HANDS,
    },
    "stud_poker": {
        "showdown_won": ("Первое вскрытие", "выигранное вскрытие"),
        "showdowns_25": ("Мастер вскрытий", "двадцать пять выигранных вскрытий"),
        **_POKER_HANDS,
    },
}
