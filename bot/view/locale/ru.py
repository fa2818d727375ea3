"""Russian texts of the bot: the "ru" half of every table in :mod:`bot.view.i18n`
(which says what each table is for and assembles them per language)."""

from __future__ import annotations

from games.engine import Reason

TEXTS: dict[str, str] = {
    # the Mini App (bot/gateway/webapp/): its own words, and its refusals
    "app_connecting": "Подключение…", "app_reconnecting": "Переподключение…",
    "app_offline": "Нет связи", "app_connected": "В сети", "app_log": "Ход кона",
    "app_close": "Закрыть", "app_your_cards": "Ваши карты", "app_your_turn": "Ваш ход",
    "app_waiting_for": "Ждём: {names}", "app_confirm": "Подтвердить",
    "app_amount": "Сумма", "app_result": "Итог", "app_spectator": "Вы смотрите",
    "app_bank": "Банк", "app_pot": "В банке", "app_coup": "{deal}",
    "app_seconds": "{n} с",
    "app_pick_cards": "Выберите до {n} карт",
    "app_bad_init": "Эта страница открыта не из Telegram или слишком давно. "
                    "Откройте стол заново из группы.",
    "app_not_member": "Этот стол только для участников его группы.",
    "app_no_table": "Этого стола больше нет.",
    "app_bad_request": "Такого действия у этого стола нет.",
    "app_log_empty": "Пока ничего не произошло.", "app_you": "вы",
    "app_network_error": "Нет связи. Попробуйте ещё раз.",
    "app_card_back": "Карта рубашкой вверх", "app_card_name": "{rank} {suit}",
    "app_card_ranks": "Двойка,Тройка,Четвёрка,Пятёрка,Шестёрка,Семёрка,Восьмёрка,Девятка,"
                      "Десятка,Валет,Дама,Король,Туз",
    "app_card_suits": "треф,бубен,червей,пик", "app_table": "Стол",
    "app_open_table": "🃏 Открыть стол",
    # the Mini App's profile and standings pages (bot/gateway/webapp/profile.py)
    "app_profile_button": "📊 Мой профиль",
    "app_profile": "Профиль", "app_standings": "Лидеры", "app_loading": "Загрузка…",
    "app_by_game": "По играм", "app_titles": "Титулы", "app_titles_none": "Титулов пока нет.",
    "app_achievements": "Достижения", "app_achievements_none": "Достижений пока нет.",
    "app_achievement_line": "{icon} <b>{title}</b> — {how}",
    "app_achievement_where": "{game} · {chat}",
    "app_rating": "Покерный рейтинг",
    "app_rating_none": "Рейтинговых покерных раздач пока нет.",
    "app_chart": "Итог в фишках по дням", "app_chart_none": "Сыгранных конов пока нет.",
    "app_chat": "Чат", "app_period": "Период", "app_game": "Игра",
    "app_no_chats": "Вы ещё не играли ни в одном чате.",
    "app_stats_bad_init": "Эта страница открыта не из Telegram или слишком давно. "
                          "Откройте её заново.",
    "app_standings_refused": "Эта таблица — только для игроков её чата.",
    "app_back_table": "К столу",
    "dealt_face_down_each": "{players} получают по {each_cards} в закрытую",
    "dealt_face_down": "{players} получают по закрытой карте",
    "welcome_group": "Привет! Я веду карточные игры на фишки. /newtable открывает стол, "
                     "/rules ИГРА — правила, /balance — ваши фишки.",
    "welcome_private": "Привет! Сюда я буду присылать ваши закрытые карты. Играют в группе: "
                       "добавьте меня туда и отправьте /newtable.",
    "dm_enabled": "Личные сообщения включены: карты будут приходить сюда.",
    "help": "/newtable — открыть стол\n/balance — ваши фишки\n/bonus — ежедневный бонус\n"
            "/stats — ваша статистика\n/top — рейтинг; /top global — все чаты\n"
            "/privacy — ваше имя в общем рейтинге\n/season — текущий сезон или прошедший\n"
            "/history — ваши последние итоги\n"
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
    "rich_title": "Самые богатые игроки:",
    "rich_line": "{rank}. {name} — {total}",
    "rich_empty": "Здесь ещё никто не играл.",
    "top_title": "🏆 <b>{period}</b> · {game}",
    "top_today": "Сегодня", "top_week": "Последние 7 дней", "top_month": "Последние 30 дней",
    "top_all": "За всё время",
    "top_line": "{rank}. {name} — {net} ({coups}, выиграно {won})",
    "top_nobody": "В рейтинге пока никого.",
    "top_min": "Чтобы попасть в рейтинг, сыграйте {coups}.",
    "top_usage": "Так: /top [today|week|month|season|all] [игра]; /top chips — самые богатые; "
                 "/top rating — покерный рейтинг.",
    "rating_stats": "🎯 Покерный рейтинг: {ordinal} ({hands})",
    "rating_stats_in": "🎯 Покерный рейтинг в чате «{chat}»: {ordinal} ({hands})",
    "rating_title": "🎯 Покерный рейтинг · этот чат",
    "rating_line": "{rank}. {name} — {ordinal} ({hands})",
    "rating_min": "Чтобы попасть в рейтинг, сыграйте {hands}.",
    "stats_title": "📊 <b>{name}</b> · {game} · {scope}",
    "stats_all_games": "все игры", "stats_this_chat": "этот чат",
    "stats_all_chats": "все чаты",
    "stats_none": "Сыгранных конов пока нет.",
    "stats_played": "Сыграно: {coups} · выиграно {won} · проиграно {lost}",
    "stats_net": "Итог: {net}",
    "stats_extremes": "Крупнейший выигрыш: {best} · крупнейший проигрыш: {worst}",
    "stats_banks": "Банков: {banks} · самая длинная серия: {run}",
    "stats_feat": "{label}: {n}",
    "stats_best_hand": "Лучшая комбинация: {hand}",
    "stats_unknown": "Игрок {name} здесь не играет. Ответьте /stats на его сообщение.",
    "stats_usage": "Так: /stats [игра]; ответом на сообщение игрока — его; "
                   "или /stats @имя [игра].",
    "season_post_title": "🏁 <b>Сезон {number} · {season}</b> завершён",
    "season_podium": "{medal} {name} — {net} ({coups})",
    "season_champion": "🏆 Чемпион: {name} ({net})",
    "season_most_coups": "🎲 Больше всех конов: {name} ({coups})",
    "season_best_banker": "🏦 Лучший банкир: {name} ({banks})",
    "season_best_hand": "🃏 Лучшая комбинация: {name} ({hand})",
    "season_next": "Начался новый сезон: /season",
    "season_now_title": "📅 <b>Текущий сезон · {season}</b> ({first} – {last})",
    "season_nobody": "В сезоне {number} ({season}) в рейтинг никто не попал.",
    "season_none": "Здесь ещё не закончился ни один сезон.",
    "season_unknown": "Сезона {number} здесь нет; закончилось сезонов: {count}.",
    "season_off": "Сезоны в этом чате выключены: /settings default season month",
    "season_usage": "Так: /season или /season N — прошедший сезон.",
    "season_set": "Сезоны в этом чате: {kind}.",
    "season_kind_week": "по неделям", "season_kind_month": "по месяцам",
    "season_kind_quarter": "по кварталам", "season_kind_off": "выключены",
    "season_bad": "season: off | week | month | quarter",
    "season_week": "{week}-я неделя {year}", "season_month": "{month} {year}",
    "season_quarter": "{quarter}-й квартал {year}",
    "month_1": "январь", "month_2": "февраль", "month_3": "март", "month_4": "апрель",
    "month_5": "май", "month_6": "июнь", "month_7": "июль", "month_8": "август",
    "month_9": "сентябрь", "month_10": "октябрь", "month_11": "ноябрь",
    "month_12": "декабрь",
    "title_champion": "🏆 Чемпион чата «{chat}», {season}",
    "title_most_coups": "🎲 Больше всех конов в чате «{chat}», {season}",
    "title_best_banker": "🏦 Лучший банкир чата «{chat}», {season}",
    "title_best_hand": "🃏 Лучшая комбинация в чате «{chat}», {season}",
    "global_on": "Этот чат участвует в общем рейтинге всех чатов.",
    "global_off": "Этот чат не участвует в общем рейтинге всех чатов.",
    "board_title": "🌍 <b>Все чаты</b> · {period} · {game}",
    "board_today": "сегодня", "board_week": "последние 7 дней",
    "board_month": "последние 30 дней", "board_all": "за всё время",
    "board_how": "Администраторы чата включают его в рейтинг: /settings default global on; "
                 "/privacy — показывать там ваше имя или скрывать.",
    "board_usage": "Так: /top global [today|week|month|all] [игра].",
    "privacy_public": "🌍 В общем рейтинге всех чатов ваше имя видно: <b>{name}</b>.",
    "privacy_hidden": "🌍 В общем рейтинге всех чатов ваше имя скрыто: <b>{masked}</b>.",
    "privacy_show": "👁 Показывать имя", "privacy_hide": "🙈 Скрывать имя",
    "privacy_now_public": "Теперь ваше имя видно в общем рейтинге.",
    "privacy_now_hidden": "Теперь ваше имя скрыто в общем рейтинге.",
    "privacy_not_yours": "Эти кнопки чужие: отправьте /privacy, чтобы выбрать за себя.",
    "privacy_usage": "Так: /privacy, /privacy public или /privacy hidden.",
    "history_title": "{name}, ваши последние итоги:",
    "history_empty": "{name}, у вас здесь ещё нет итогов.",
    "history_chats": "{name}, ваши последние итоги по чатам:",
    "history_chat": "<b>{chat}</b>:",
    "history_nowhere": "{name}, у вас пока ни в одном чате нет итогов.",
    "history_coup": "{game} · {deal}: {amount}",
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
    "settings_no_app": "Нельзя установить: у этого бота нет приложения стола (его владелец "
                       "не настроил), поэтому игра идёт в чате.",
    "settings_unknown": "Настройки {key} нет. У стола «{game}» есть: {keys}.",
    "settings_seated": "Настройки игры меняются, только пока за столом никого нет.",
    "closed_table": "Стол закрыт; все фишки вернулись в кошельки.",
    "closed_idle": "⏰ Решений подряд, где никто не сыграл: {n} — стол закрывается сам.",
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
    "stale_coup": "Эта кнопка устарела ({pressed}); сейчас {now}.",
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
    "your_cards_up": "Ваши карты: <b>{cards}</b> · открытые: <b>{up}</b>",
    "ask_amount": "Напишите сумму ({min}–{max}) в ответ на моё сообщение ниже, здесь в "
                  "группе.",
    "ask_amount_any": "Напишите сумму в ответ на моё сообщение ниже, здесь в группе.",
    "ask_amount_private": "Напишите сумму ({min}–{max}) в ответ на моё сообщение ниже, здесь, "
                          "в нашем личном чате.",
    "ask_amount_private_any": "Напишите сумму в ответ на моё сообщение ниже, здесь, в нашем "
                              "личном чате.",
    "ask_amount_here": "Напишите сумму ({min}–{max}) в этот чат.",
    "ask_amount_here_any": "Напишите сумму в этот чат.",
    "ask_prompt": "{who}, {label}: сколько? {range}",
    "ask_prompt_private": "✏️ {label}: сколько? {range}",
    "amount_which": "{name}, пишите @{bot} и сумму, когда от вас ждут одну сумму; "
                    "в остальных случаях сначала нажмите ✏️.",
    "amount_not_number": "{name}, отправьте целое число фишек (например, 50).",
    "amount_bounds": "{name}, сумма должна быть от {min} до {max}.",
    "amount_accepted": "{name}: {amount}.",
    "dm_blocked": "{name}, я не могу написать вам лично. Откройте {link} и нажмите «Start», "
                  "чтобы получать карты; пока их показывает кнопка «Мои карты».",
    "dm_header": "<b>{game} · {deal}</b>",
    "table_title": "<b>{game} · {deal}</b>",
    "idle_table": "<b>{game}</b> · {phase}",
    "bank": "банк {amount}",
    "pot": "в банке {amount}",
    "seat_stack": "{stack}",
    "seat_stake": "ставка {stake}",
    "seat_hidden": "🂠×{n}",
    "turn": "⏳ {names} · {left}",
    "turn_nodeadline": "⏳ {names}",
    "turn_private": "⏳ {names} · решение наедине · {left}",
    "turn_private_nodeadline": "⏳ {names} · решение наедине",
    "buttons_in_cards": "👉 {names}: ваши кнопки — под «🂠 Мои карты».",
    "seconds": "{n} с",
    "named": "{name}: {text}",
    "committed_shoe": "🔒 колода зафиксирована · /verify",
    "back": "{name} забирает свои фишки назад",
    "back_with": "{name} забирает свои фишки назад: {hand}",
    "split_back": "{names} делят банк: каждый забирает свои фишки назад",
    "and": "{first} и {last}",
    "nobody_won": "Ничья: ставки возвращаются",
    "wins": "{name} выигрывает {amount}",
    "wins_with": "{name} выигрывает {amount}: {hand}",
    "hand_points": "{n} {unit}",
    "hand_bust": "{n}, перебор",
    "prompt_done": "✅ {label}",
    "prompt_timed_out_did": "⏰ Время вышло; стол решил за вас: {line}",
    "prompt_timed_out": "⏰ Время вышло: стол решил за вас.",
    "prompt_coup_over": "🏁 {deal}: конец.",
    "prompt_over": "⌛ Это решение уже не ждёт вас.",
    "prompt_closed": "🚪 Стол закрыт.",
    "decide_private": "Ваш ход за столом — выберите здесь:",
    "no_seats": "За столом никого.",
    "stood_up": "{name} дважды не успел и встаёт из-за стола.",
    "timed_out": "⏰ Время вышло: {names}.",
    "achievement_line": "{icon} {name}: <b>{title}</b> — {what}",
    "achievement_dm": "{icon} Новое достижение в «{chat}»: <b>{title}</b> — {what}",
    "achievement_dm_untitled": "{icon} Новое достижение в группе: <b>{title}</b> — {what}",
    "stats_achievements": "🏅 Достижения: {n} — {titles}",
    "last_result": "🏆 {deal}: {headline} ({nets})",
    "timed_out_did": "⏰ {line} (время вышло)",
    "settled_title": "{game} · {deal}: расчёт",
    "result_line": "{name}: {delta}",
    "new_coup": "Новый кон",
    "open_table": "🃏 Открыть стол",
    "app_card": "🃏 Ходы делаются в приложении стола или в личном чате с ботом.",
    "my_cards_button": "🂠 Мои карты",
    "type_amount": "✏️ сумма",
    "switch_way": "🔁 {way}",
    "switch_done": "Ваша ставка теперь: {way}",
    "btn_other": "{label} {amount}",
    "phase": "Фаза: {phase}",
    "wallet_low": "Кошелёк пуст: /bonus даёт фишки раз в день.",
    "join_done": "🪑 Вы садитесь за стол с {amount}",
    "pick_private": "{label}: отметьте карты и подтвердите.",
    "see_private": "Выберите в личном чате с ботом.",
    "only_you": "🂠 Это сообщение видите только вы.",
    "see_below": "Сообщение ниже видите только вы.",
    "ask_prompt_here": "✏️ {label}: сколько? {range} Напишите число в этот чат.",
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
    "decision": ("решение", "решения", "решений"),
    "coup": ("кон", "кона", "конов"),
    "rated_hand": ("раздача", "раздачи", "раздач"),
    "bank": ("банк", "банка", "банков"),
}

# /settings: what each setting is, and its unit (a key of NOUN_FORMS), or the values it takes.
SETTINGS: dict[str, tuple[str, str]] = {
    "timeout": ("время на каждое решение", "second"),
    "turn_dm": ("ход каждому, кого ждёт стол, в личный чат", "on | off"),
    "idle_close": ("стол закрывается сам после стольких решений подряд, где никто не "
                   "сыграл (0 — никогда)", "decision"),
    "screen": ("где идёт игра: chat — в сообщении стола в группе; app — в приложении "
               "стола, а в группу приходят только карточка и итог каждого кона",
               "chat | app"),
}

# Words the host says itself (history lines, the banker of a result).
WORDS: dict[str, str] = {
    "starting_grant": "стартовые фишки", "daily_bonus": "ежедневный бонус", "banker": "банкомёт",
}
