"""Russian texts of the bot: the "ru" half of every table in :mod:`bot.i18n`
(which says what each table is for and assembles them per language)."""

from __future__ import annotations

from games.engine import Reason

GAME_NAMES: dict[str, str] = {
    "chemin_de_fer": "Шмен де фер", "baccarat": "Баккара", "banchok": "Польский банчок",
    "twenty_one": "Очко", "draw_poker": "Покер с обменом", "stud_poker": "Стад-покер",
}

TEXTS: dict[str, str] = {
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
    "table_exists": "В этом чате уже есть стол: {game}. /table покажет его.",
    "no_table": "Здесь нет стола. /newtable откроет его.",
    "table_opened": "{game}: стол открыт. Нажмите «Сесть», чтобы занять место.",
    "group_only": "Это работает в групповом чате.",
    "from_group": "В группе <b>{chat}</b>:",
    "answered_privately": "{name}, ответ — в личном чате со мной.",
    "unknown_game": "Неизвестная игра. Выберите одну из: {games}",
    "balance": "{name}: {balance_chips} в кошельке, {on_table} на столе.",
    "balance_chats": "{name}, ваши фишки по чатам:",
    "balance_chat": "<b>{chat}</b>: {balance} в кошельке, {on_table} на столе",
    "balance_nowhere": "{name}, у вас пока нигде нет фишек. Играйте в группе: добавьте меня "
                       "туда и отправьте там /newtable.",
    "chat_untitled": "группа",
    "chat_untitled_game": "группа со столом «{game}»",
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
    "rules_pick": "Правила какой игры?",
    "language_pick": "Язык этого чата:",
    "language_set": "Язык: русский.",
    "admins_only": "Это могут только администраторы чата.",
    "settings_title": "Настройки этого стола ({game}):",
    "settings_line": "{key} = {value} — {what}",
    "settings_defaults": "Следующие столы чата: {values}",
    "settings_how_table": "Изменить для этого стола: /settings КЛЮЧ ЗНАЧЕНИЕ",
    "settings_how_default": "Для следующих столов чата: /settings default КЛЮЧ ЗНАЧЕНИЕ",
    "settings_set": "Этот стол: {key} = {value}. Чтобы и следующие столы чата начинались "
                    "так: /settings default {key} {raw}",
    "settings_default_set": "Следующие столы чата: {key} = {value}.",
    "settings_default_dropped": "Следующие столы чата: {key} — как у бота по умолчанию.",
    "settings_range": "{key} — от {min} до {max} {unit}",
    "settings_game_key": "{key} — настройка игры, укажите её: "
                         "/settings default ИГРА {key} ЗНАЧЕНИЕ",
    "settings_bad": "Нельзя установить: {error}",
    "settings_seated": "Настройки игры меняются, только пока за столом никого нет.",
    "table_closed": "Стол закрыт; все фишки вернулись в кошельки.",
    "verify_current": "Текущий шуз: его хеш, корень дерева Меркла по всем картам с их "
                      "позициями и солью, показан до среза:\n{commitment}",
    "verify_none": "Шуз ещё не тасовали.",
    "verify_revealed": "Последний раскрытый шуз {commitment}: {size_cards} в зафиксированном "
                       "порядке; {how}, так что сдача началась с позиции {cut}.",
    "verify_current_cut": "Как срезан шуз: {how}, так что сдача идёт с позиции {cut}.",
    "verify_cut_by": "срез на {cut} выбрал игрок {player}",
    "verify_cut_rule": "у игрока {player} вышло время на срез, и срез на {cut} дало правило "
                       "тайм-аута (SHA-256 от \"cut|хеш|id сидящих|номер сдачи\" по модулю "
                       "{size})",
    "verify_uncut_hand": "колоду одной раздачи покера не срезают",
    "verify_uncut_draw": "шуз только для жребия на банк не срезают",
    "verify_uncut": "шуз не срезали",
    "verify_burned": "Сначала открыто сожжены: {burned_cards}.",
    "verify_all": "Опубликовано всё: порядок и соль, из которой выводится соль каждой карты.",
    "verify_shown": "Доказаны только показанные за столом карты ({count_cards}); остальные "
                    "остаются тайной.",
    "your_proof": "🔐 Доказательство ваших карт в раздаче №{hand} (сохраните это сообщение в "
                  "файл и проверьте: python -m games.verify FILE):\n"
                  "<blockquote expandable>{record}</blockquote>",
    "proof_sent": "🔐 {name}, доказательство ваших карт в раздаче №{hand} — в личном чате.",
    "verify_how": "Проверка: сохраните JSON ниже в файл и запустите python -m games.verify "
                  "FILE; он проверит корень, доказательство каждой карты, срез и каждую "
                  "сданную карту.",
    "stale": "Эта кнопка устарела.",
    "stale_coup": "Эта кнопка была для кона №{coup}; сейчас кон №{now}.",
    "stale_turn": "Эта кнопка была для прежнего хода.",
    "now_yours": "Ваш ход: {labels}.",
    "now_waiting": "Сейчас ждём: {names}.",
    "next_yours": "снова ваш ход",
    "next_waiting": "теперь ход: {names}",
    "forged": "Эта кнопка недействительна.",
    "other_table": "Эта кнопка от другого стола.",
    "table_resumed": "▶️ Игра продолжается.",
    "table_paused": "Стол на паузе: бот не может писать в этот чат.",
    "internal_error": "Что-то пошло не так, ничего не изменилось.",
    "done": "Готово",
    "no_cards": "Сейчас у вас нет закрытых карт.",
    "your_cards": "Ваши карты: <b>{cards}</b>",
    "ask_amount": "Напишите сумму ({min}–{max}) в ответе, который я открыл для вас.",
    "ask_amount_any": "Напишите сумму в ответе, который я открыл для вас.",
    "ask_prompt": "{who}, {label}: сколько? {range}",
    "ask_prompt_private": "✏️ {label}: сколько? {range}",
    "amount_which": "{name}, пишите @{bot} и сумму, когда от вас ждут одну сумму; "
                    "в остальных случаях сначала нажмите ✏️.",
    "amount_not_number": "{name}, отправьте целое число фишек (например, 50).",
    "amount_bounds": "{name}, сумма должна быть от {min} до {max}.",
    "amount_accepted": "{name}: {amount}.",
    "dm_blocked": "{name}, я не могу написать вам лично. Откройте {link} и нажмите «Start», "
                  "чтобы получать карты; пока их показывает кнопка «Мои карты».",
    "dm_header": "<b>{game} · кон №{coup}</b>",
    "table_title": "<b>{game} · кон №{coup}</b>",
    "table_idle": "<b>{game}</b> · ждём игроков",
    "bank": "банк {amount}",
    "pot": "в банке {amount}",
    "seat_stack": "{stack}",
    "seat_stake": "ставка {stake}",
    "seat_hidden": "🂠×{n}",
    "turn": "⏳ {names} · {left}",
    "turn_nodeadline": "⏳ {names}",
    "turn_private": "⏳ {names} · решение в личном чате · {left}",
    "turn_private_nodeadline": "⏳ {names} · решение в личном чате",
    "seconds": "{n} с",
    "named": "{name}: {text}",
    "shoe_committed": "🔒 колода зафиксирована · /verify",
    "nobody_won": "Ничья: ставки возвращаются",
    "wins": "{name} выигрывает {amount}",
    "wins_with": "{name} выигрывает {amount}: {hand}",
    "points": "{n} {unit}",
    "bust": "{n}, перебор",
    "prompt_done": "✅ {label}",
    "prompt_timed_out": "⏰ Время вышло: стол решил за вас.",
    "prompt_coup_over": "🏁 Кон окончен.",
    "prompt_over": "⌛ Это решение уже не ждёт вас.",
    "prompt_closed": "🚪 Стол закрыт.",
    "decide_private": "Ваш ход за столом — выберите здесь:",
    "no_seats": "За столом никого.",
    "stood_up": "{name} дважды не успел и встаёт из-за стола.",
    "timed_out": "⏰ Время вышло: {names}.",
    "last_result": "🏆 Кон №{coup}: {headline} ({nets})",
    "timed_out_did": "⏰ {line} (время вышло)",
    "settled_title": "{game} · кон №{coup}: расчёт",
    "result_line": "{name}: {delta}",
    "new_coup": "Новый кон",
    "my_cards_button": "🂠 Мои карты",
    "type_amount": "✏️ сумма",
    "btn_other": "{label} {amount}",
    "phase": "Фаза: {phase}",
    "wallet_low": "Кошелёк пуст: /bonus даёт фишки раз в день.",
    "join_done": "🪑 Вы садитесь за стол с {amount}",
    "pick_private": "{label}: отметьте карты и подтвердите.",
    "see_private": "Выберите в личном чате с ботом.",
}

REASONS: dict[Reason, str] = {
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
    Reason.ALREADY_LEAVING: "Вы уже встаёте из-за стола после этого кона.",
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
    "cards_proven": "🔐 Доказательство ваших карт в раздаче {hand} (сохраните в файл и "
                    "проверьте: python -m games.verify FILE):\n"
                    "<blockquote expandable>{record}</blockquote>",
    "cut_requested": "Срезать шуз предстоит {player}",
    "cut_awaited": "Срезать шуз предстоит {player}",
    "shoe_cut": "{player} срезает шуз",
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
    "card_dealt": ("{player} получает {card}", "Вам пришла {card}"),
    "card_dealt_face_down": "{player} получает закрытую карту",
    "cards_dealt_face_down": ("{players} получают по {each_cards} в закрытую",
                              "{players} получают по закрытой карте"),
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
    "stood_up": "{player} дважды не успел сходить и встаёт из-за стола",
    "timed_out": ("⏰ {player}: время вышло, за него — «{action}»", "⏰ {player}: время вышло"),
    "coup_settled": ("Расчёт ({outcome}): {results}", "Расчёт: {results}", "Расчёт: {net}"),
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
    "points": "Ваши очки", "total": "Ваши очки", "hand": "Ваша комбинация", "bust": "Перебор",
    "hint": "По таблице",
}

WORDS: dict[str, str] = {
    "starting_grant": "стартовые фишки", "daily_bonus": "ежедневный бонус",
    "phase:idle": "ожидание", "phase:auction": "торг за банк", "phase:cut": "срез",
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
    "bank_covered": "банк уже покрыт", "tripled": "банк утроился",
    "nobody_took_bank": "никто не взял банк",
}

NUMBERED: dict[str, str] = {"points": "очков: {n}", "total": "очков: {n}", "stake": "ставка {n}"}

# Card ranks, deuce to ace, for poker hand names (HANDS): nominative, genitive, plural
# and genitive plural.
RANK_NOM: tuple[str, ...] = (
    "двойка", "тройка", "четвёрка", "пятёрка", "шестёрка", "семёрка", "восьмёрка", "девятка",
    "десятка", "валет", "дама", "король", "туз",
)
RANK_GEN: tuple[str, ...] = (
    "двойки", "тройки", "четвёрки", "пятёрки", "шестёрки", "семёрки", "восьмёрки", "девятки",
    "десятки", "валета", "дамы", "короля", "туза",
)
RANK_PL: tuple[str, ...] = (
    "двойки", "тройки", "четвёрки", "пятёрки", "шестёрки", "семёрки", "восьмёрки", "девятки",
    "десятки", "валеты", "дамы", "короли", "тузы",
)
RANK_PL_GEN: tuple[str, ...] = (
    "двоек", "троек", "четвёрок", "пятёрок", "шестёрок", "семёрок", "восьмёрок", "девяток",
    "десяток", "валетов", "дам", "королей", "тузов",
)

# Poker hands (games.poker.ranking.HandValue): one template per category; {n0} is the
# first rank in the nominative, {s0} genitive, {p0} plural, {g0} genitive plural.
RANK_FORMS: dict[str, tuple[str, ...]] = {
    "n": RANK_NOM, "s": RANK_GEN, "p": RANK_PL, "g": RANK_PL_GEN}
HANDS: dict[str, str] = {
    "high_card": "старшая карта — {n0}",
    "pair": "пара {g0}",
    "two_pair": "две пары: {p0} и {p1}",
    "three": "тройка {g0}",
    "straight": "стрит до {s0}",
    "flush": "флеш до {s0}",
    "full_house": "фулл-хаус: тройка {g0} и пара {g1}",
    "four": "каре {g0}",
    "straight_flush": "стрит-флеш до {s0}",
    "royal_flush": "роял-флеш",
    "possible_straight": "возможен стрит",
    "possible_flush": "возможен флеш",
    "possible_full_house": "возможен фулл-хаус",
}

# A noun after a number: one (1, 21, 31…), few (2–4, 22–24…), many (0, 5–20, 25–30…).
NOUN_FORMS: dict[str, tuple[str, str, str]] = {
    "point": ("очко", "очка", "очков"),
    "card": ("карта", "карты", "карт"),
    "chip": ("фишка", "фишки", "фишек"),
    "second": ("секунда", "секунды", "секунд"),
    "deck": ("колода", "колоды", "колод"),
}

# /settings: what each setting is, and its unit (a key of NOUN_FORMS), or the values it takes.
SETTINGS: dict[str, tuple[str, str]] = {
    "timeout": ("время на каждое решение", "second"),
    "turn_dm": ("ход каждому, кого ждёт стол, в личный чат", "on | off"),
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
