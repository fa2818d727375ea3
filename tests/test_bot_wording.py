"""What a player reads at the chat table, word for word, in English and Russian: the table
message's header, seat lines and log, /verify and /rules (the issue "The chat table as
players meet it", its section "Wording and layout")."""

from __future__ import annotations

import itertools
import random
import re
from typing import Any

import pytest
from test_bot_tables import (  # noqa: F401 (make_host is a fixture)
    ANN,
    BOB,
    CHAT,
    CID,
    PREFERRED,
    RecordingBot,
    buttons,
    make_host,
    press,
    table_message,
    worded,
)
from test_twenty_one_rules import table as twenty_one_table

from bot.view import answers, i18n, logbook, render, results, screens, wallets, webview
from bot.view.codec import ActionButton, decode
from bot.view.outcomes import HostReason, Refused
from bot.view.rulebook import game_of, rules_text, to_html
from bot.view.scene import scene
from bot.view.sight import Sight
from games import cards, registry, twenty_one
from games.engine import (
    Cut,
    Event,
    Hand,
    Join,
    Purpose,
    Settlement,
    Start,
    chips,
    count,
    items,
    parse_action,
    timed_out,
    who,
)
from games.engine import (
    cards as shown,
)
from games.texts import RULES_DIR
from storage.base import LedgerEntry

NAMES = {1: "Ann", 2: "Bob", 3: "Cid"}


def first_line(lang: str, engine: Any, state: Any) -> str:
    """The table message's header as a person reads it."""
    text = screens.table_render(lang, scene(-1, Sight(engine, state), None, None, [],
                                            NAMES)).text
    return i18n.plain(text.splitlines()[0])


def test_twenty_one_names_the_bank_like_every_banking_game() -> None:
    # Ann banks with her 300: the bank is her stack, which pays every punter
    state = twenty_one_table({1: 300, 2: 100, 3: 100}, [])
    assert first_line("en", twenty_one.ENGINE, state) == (
        "Twenty-one · coup #1 · staking · bank 300")
    assert first_line("ru", twenty_one.ENGINE, state) == "Очко · кон №1 · ставки · банк 300"


def log_of(text: str) -> list[str]:
    """A table message's log as a person reads it, oldest first: the collapsed lines, then
    the recent ones under the seats."""
    quoted = re.search(r"<blockquote expandable>(.*?)</blockquote>", text, re.S)
    older = quoted.group(1).splitlines() if quoted else []
    recent = [line[2:] for line in text.splitlines() if line.startswith("· ")]
    return [i18n.plain(line) for line in [*older, *recent]]


async def seated(make: Any, game: str, lang: str, seed: str,
                 monkeypatch: pytest.MonkeyPatch) -> tuple[Any, RecordingBot]:
    """A table of ``game`` in a chat of ``lang`` whose shoes come from a seeded generator,
    Ann, Bob and Cid seated and the game started."""
    seeded = random.Random(seed)
    monkeypatch.setattr(cards, "secure_rng", lambda: seeded)
    bot = RecordingBot()
    host = await make(bot)
    assert await host.lifecycle.open_table(CHAT, game, ANN, lang) is None
    await host.idle()
    for player in (ANN, BOB, CID):
        await press(host, bot, player, ["join"])
    await press(host, bot, ANN, ["start"])
    return host, bot


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_a_shoe_only_drawn_for_the_bank_says_nothing_of_being_finished(
        lang: str, make_host: Any, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    host, bot = await seated(make_host, "twenty_one", lang, "draw", monkeypatch)
    log = log_of(table_message(bot).text)
    # Ann and Cid tie on aces and draw again; the draw's shoe is proven by /verify, and
    # only the talia's own shoe will be "finished"
    assert log[3:] == {
        "en": ["Ann starts the game", "🔒 New shoe shuffled and committed",
               "Drawing for the bank: Ann: A♠; Bob: 10♠; Cid: A♥",
               "Drawing for the bank: Ann: 6♠; Cid: K♠", "Cid holds the bank",
               "🔒 New shoe shuffled and committed"],
        "ru": ["Ann начинает игру", "🔒 Новый шуз перетасован и зафиксирован",
               "Жребий на банк: Ann: A♠; Bob: 10♠; Cid: A♥", "Жребий на банк: Ann: 6♠; Cid: K♠",
               "Cid держит банк", "🔒 Новый шуз перетасован и зафиксирован"]}[lang]
    assert (await host.tables.load(CHAT)).meta.revealed["purpose"] == Purpose.BANK_DRAW



async def until_phase(host: Any, bot: RecordingBot, phase: str) -> Any:
    """Everybody presses by the default policy until the table is in ``phase``."""
    for _ in range(100):
        table = await host.tables.load(CHAT)
        if table.state.phase == phase:
            return table
        await press(host, bot, (table.engine.awaiting(table.state) or [ANN])[0], PREFERRED)
    raise AssertionError(f"never reached {phase}")


@pytest.mark.parametrize("game", ["chemin_de_fer", "baccarat", "twenty_one"])
@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_the_cut_is_told_once_when_it_is_made(
        game: str, lang: str, make_host: Any, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    host, bot = await seated(make_host, game, lang, "cut", monkeypatch)
    table = await until_phase(host, bot, "cut")
    [cutter] = table.engine.awaiting(table.state)
    # awaited, the cut is the turn line's ("⏳ Cid"), not the log's
    assert not [line for line in log_of(table_message(bot).text) if "cut" in line or "рез" in line]
    await press(host, bot, cutter, ["cut"])
    committed = {"en": "🔒 New shoe shuffled and committed",
                 "ru": "🔒 Новый шуз перетасован и зафиксирован"}[lang]
    cuts = {"en": "{} cuts the shoe", "ru": "{} срезает шуз"}[lang].format(NAMES[cutter])
    after = {("chemin_de_fer", "en"): ["Burned: 6♥ 9♠ 10♠", "Coup 1: bank 1, stakes please"],
             ("chemin_de_fer", "ru"): ["Сожжены: 6♥ 9♠ 10♠", "Кон №1: банк 1, делайте ставки"],
             ("baccarat", "en"): ["Coup 1: Ann holds a bank of 2"],
             ("baccarat", "ru"): ["Кон №1: Ann держит банк 2"],
             ("twenty_one", "en"): ["Coup 1 begins"],
             ("twenty_one", "ru"): ["Кон №1 начинается"]}[game, lang]
    log = log_of(table_message(bot).text)
    assert log[-2 - len(after):] == [committed, cuts, *after]


async def time_out(host: Any) -> list[int]:
    """The awaited players' deadline passes (the host's own timeout path); who they were."""
    table = await host.tables.load(CHAT)
    awaited = table.engine.awaiting(table.state)
    await host.tables.commit(table, table.engine.timeout(table.state), timed_out=awaited)
    await host.idle()
    return awaited


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_one_timeout_is_one_line(
        lang: str, make_host: Any, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    host, bot = await seated(make_host, "twenty_one", lang, "cut", monkeypatch)
    assert await time_out(host) == [ANN]  # Bob banks; Ann, on his right, lets the cut go
    assert await time_out(host) == [CID]  # Cid, on his left, lets his stake go
    log = log_of(table_message(bot).text)
    assert log[-4:] == {
        "en": ["🔒 New shoe shuffled and committed", "⏰ Ann cuts the shoe (timed out)",
               "Coup 1 begins", "⏰ Cid sits this coup out (timed out)"],
        "ru": ["🔒 Новый шуз перетасован и зафиксирован", "⏰ Ann срезает шуз (время вышло)",
               "Кон №1 начинается", "⏰ Cid пропускает кон (время вышло)"]}[lang]
    # banchok: a bank let pass by a timeout is told once that it was one
    passed = logbook.timeouts_folded([timed_out(ANN),
                                      Event(kind="bank_passed_over", data={"player": who(ANN)})])
    assert logbook.log_lines(lang, [logbook.log_entry(e, t) for e, t in passed], NAMES) == [{
        "en": "⏰ Ann lets the bank pass and keeps his seat (timed out)",
        "ru": "⏰ Ann пропускает банк и остаётся за столом (время вышло)"}[lang]]


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_a_seat_line_says_its_stake_once_and_ends_with_no_semicolon(lang: str) -> None:
    state = twenty_one_table({1: 300, 2: 100, 3: 100}, [])
    state = twenty_one.ENGINE.apply(state, 2, twenty_one.Stake(amount=10)).state
    text = i18n.plain(screens.table_render(lang, scene(
        -1, Sight(twenty_one.ENGINE, state), None, None, [], NAMES)).text)
    assert text.splitlines()[3] == {"en": "p2 (punter) · 💰90 · stake 10",
                                    "ru": "p2 (понтёр) · 💰90 · ставка 10"}[lang]
    # a stud hand showing no possible straight or flush yet
    showing = Event(kind="showing", data={
        "player": who(1), "cards": shown("Kc", "3d"), "value": Hand(category="high_card",
                                                                     ranks=(11,)),
        "possible": items()})
    assert i18n.event_text(lang, showing, NAMES) == {
        "en": "Ann shows K♣ 3♦: king high", "ru": "Ann: K♣ 3♦, старшая карта — король"}[lang]


def test_a_count_takes_the_form_of_its_noun() -> None:
    assert [i18n.count("ru", n, "card") for n in (1, 2, 4, 5, 11, 12, 21, 22, 52, 111, 312)] == [
        "1 карта", "2 карты", "4 карты", "5 карт", "11 карт", "12 карт", "21 карта", "22 карты",
        "52 карты", "111 карт", "312 карт"]
    assert [i18n.count("en", n, "card") for n in (0, 1, 2, 21, 52)] == [
        "0 cards", "1 card", "2 cards", "21 cards", "52 cards"]
    assert [str(i18n.points(lang, 21)) for lang in ("en", "ru")] == ["21 points", "21 очко"]
    assert i18n.t("ru", "balance", name="Ann", balance=21, on_table=0) == (
        "Ann: 21 фишка в кошельке, 0 на столе.")
    assert i18n.t("en", "balance", name="Ann", balance=1, on_table=0) == (
        "Ann: 1 chip in the wallet, 0 on the table.")
    discarded = Event(kind="discarded", data={"player": who(1), "count": count(3, "card")})
    assert [i18n.event_text(lang, discarded, NAMES) for lang in ("en", "ru")] == [
        "Ann discards 3 cards", "Ann меняет 3 карты"]


@pytest.mark.parametrize(("lang", "deal", "settled", "history"), [
    ("en", "Hand #{}", "Draw poker (jackpots) · hand #{} settled",
     "Draw poker (jackpots) · hand #{}: +8"),
    ("ru", "Раздача №{}", "Покер с обменом · раздача №{}: расчёт",
     "Покер с обменом · раздача №{}: +8")])
async def test_poker_says_hand_where_the_banking_games_say_coup(
        lang: str, deal: str, settled: str, history: str, make_host: Any,  # noqa: F811
        monkeypatch: pytest.MonkeyPatch) -> None:
    # its headers said "Coup #1" beside a log saying "Hand 1 begins"
    host, bot = await seated(make_host, "draw_poker", lang, "deal", monkeypatch)
    name = i18n.game_name(lang, "draw_poker")
    title = f"{name} · {deal.format(1)[0].lower()}{deal.format(1)[1:]}"
    header = i18n.plain(table_message(bot).text).splitlines()[0]
    assert header.startswith(f"{title} · "), header
    table = await host.tables.load(CHAT)
    assert i18n.plain(render.dm_text(lang, table.sight.view(BOB), [])).splitlines()[0] == title
    won = Settlement(kind="coup_settled", coup=4, nets={2: 8, 1: -8}, winners=(2,))
    assert results.settlement_text(lang, "draw_poker", won, NAMES, []).splitlines()[1] \
        == settled.format(4)
    assert i18n.plain(results.result_line(lang, "draw_poker", won, NAMES)).startswith(
        f"🏆 {deal.format(4)}: ")
    entry = LedgerEntry(step_id=1, chat_id=CHAT, coup=4, account="stack:2", delta=8,
                        reason="settle", game="draw_poker", created_at=0)
    assert wallets.history_lines(lang, [entry]) == [history.format(4)]
    assert webview.ui(lang, "draw_poker")["coup"] == deal.replace("{}", "{n}")
    # the banking games keep their coups
    assert webview.ui(lang, "twenty_one")["coup"] == {"en": "Coup #{n}", "ru": "Кон №{n}"}[lang]


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_a_draw_poker_deal_is_one_line_not_fifteen(
        lang: str, make_host: Any, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    _, bot = await seated(make_host, "draw_poker", lang, "deal", monkeypatch)
    assert log_of(table_message(bot).text) == {
        "en": ["Hand 1 begins", "🔒 New shoe shuffled and committed",
               "Antes posted: Bob 1, Cid 1, Ann 1", "Bob, Cid, Ann each get 5 cards face down"],
        "ru": ["Раздача №1 начинается", "🔒 Новый шуз перетасован и зафиксирован",
               "Анте внесено: Bob 1, Cid 1, Ann 1", "Bob, Cid, Ann получают по 5 карт в закрытую"],
    }[lang]


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_verify_says_in_words_who_cut_as_the_shoe_recorded_it(
        lang: str, make_host: Any, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    host, bot = await seated(make_host, "twenty_one", lang, "cut", monkeypatch)
    table = await until_phase(host, bot, "cut")
    [cutter] = table.engine.awaiting(table.state)
    shoe = table.state.shoe
    # Ann presses the very depth the timeout rule would have given: still her choice
    rule = shoe.timeout_cut([s.player for s in table.state.seats], table.state.coup)
    await host.tables.commit(table, table.engine.apply(table.state, cutter, Cut(offset=rule)),
                             actor=cutter)
    paragraphs = (await host.lifecycle.verify(CHAT)).split("\n\n")
    assert paragraphs[0].splitlines()[2] == {
        "en": f"How it was cut: Ann chose to cut it at {rule}, so dealing begins at committed "
              f"position {rule}.",
        "ru": f"Как срезан шуз: срез на {rule} выбрал игрок Ann, так что сдача идёт с позиции "
              f"{rule}."}[lang]
    # the last revealed shoe is the one the bank was drawn from: nobody cuts it
    draw = (await host.tables.load(CHAT)).meta.revealed["record"]["commitment"]
    assert paragraphs[1] == {
        "en": f"Last revealed shoe {draw}: 104 cards in the committed order; nobody cuts a shoe "
              "only drawn from for the bank, so dealing began at committed position 0. "
              "Everything is published: the order and the salt every card's salt comes from.",
        "ru": f"Последний раскрытый шуз {draw}: 104 карты в зафиксированном порядке; шуз только "
              "для жребия на банк не срезают, так что сдача началась с позиции 0. Опубликовано "
              "всё: порядок и соль, из которой выводится соль каждой карты."}[lang]


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_verify_says_the_timeout_rule_cut_when_the_cutters_time_ran_out(
        lang: str, make_host: Any, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    host, bot = await seated(make_host, "chemin_de_fer", lang, "cut", monkeypatch)
    await until_phase(host, bot, "cut")
    assert await time_out(host) == [CID]
    shoe = (await host.tables.load(CHAT)).state.shoe
    assert shoe.by_timeout and shoe.cutter == CID
    how = (await host.lifecycle.verify(CHAT)).split("\n\n")[0].splitlines()[2]
    assert i18n.plain(how) == {
        "en": f"How it was cut: Cid's time to cut ran out, and the timeout rule cut it at "
              f"{shoe.cut} (SHA-256 of \"cut|commitment|seated ids|coup\" mod 312), so dealing "
              f"begins at committed position {shoe.cut}. Burned face up first: 3 cards.",
        "ru": f"Как срезан шуз: у игрока Cid вышло время на срез, и срез на {shoe.cut} дало "
              f"правило тайм-аута (SHA-256 от \"cut|хеш|id сидящих|номер сдачи\" по модулю 312), "
              f"так что сдача идёт с позиции {shoe.cut}. Сначала открыто сожжены: 3 карты."}[lang]


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_verify_counts_a_poker_deck_as_52_cards_nobody_cut(
        lang: str, make_host: Any, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    host, _ = await seated(make_host, "stud_poker", lang, "deck", monkeypatch)
    while (await host.tables.load(CHAT)).meta.revealed is None:
        await time_out(host)
    revealed = (await host.tables.load(CHAT)).meta.revealed["record"]
    assert len(revealed["shown"]) == 15  # every card of the hands shown down
    text = (await host.lifecycle.verify(CHAT)).split("\n\n")[1]
    assert text == {
        "en": f"Last revealed shoe {revealed['commitment']}: 52 cards in the committed order; "
              "nobody cuts a deck dealt for one poker hand, so dealing began at committed "
              "position 0. Only the cards shown at the table are proven (15 cards); the "
              "others stay secret.",
        "ru": f"Последний раскрытый шуз {revealed['commitment']}: 52 карты в зафиксированном "
              "порядке; колоду одной раздачи покера не срезают, так что сдача началась с "
              "позиции 0. Доказаны только показанные за столом карты (15 карт); остальные "
              "остаются тайной."}[lang]


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_the_proof_of_ones_own_cards_comes_when_one_asks_not_after_every_hand(
        lang: str, make_host: Any, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    host, bot = await seated(make_host, "stud_poker", lang, "deck", monkeypatch)
    while not (await host.tables.load(CHAT)).meta.proofs:
        await time_out(host)
    # the hand is over: nobody got a message of JSON for it
    assert not [m.text for p in (ANN, BOB, CID) for m in bot.chat(p) if "🔐" in m.text]
    proof = (await host.tables.load(CHAT)).meta.proofs[BOB]
    said = await host.lifecycle.verify(CHAT, BOB, "Bob")
    await host.idle()
    assert said.split("\n\n")[0] == {
        "en": "🔐 Bob, the proof of your own cards in hand #1 is in your private chat.",
        "ru": "🔐 Bob, доказательство ваших карт в раздаче №1 — в личном чате."}[lang]
    [dm] = [m.text for m in bot.chat(BOB) if "🔐" in m.text]
    assert dm == {
        "en": "🔐 Proof of your cards in hand #1 (save this message to a file, check it with "
              "python -m games.verify FILE):\n",
        "ru": "🔐 Доказательство ваших карт в раздаче №1 (сохраните это сообщение в файл и "
              "проверьте: python -m games.verify FILE):\n"}[lang] + (
        f"<blockquote expandable>{i18n.html(proof.record)}</blockquote>")
    assert not [m for p in (ANN, CID) for m in bot.chat(p) if "🔐" in m.text]


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_rules_are_sent_with_one_line_per_paragraph(lang: str) -> None:
    for path in sorted(RULES_DIR.glob(f"*.{lang}.md")):
        html = to_html(path.read_text(encoding="utf-8"))
        lines = html.splitlines()
        for before, line in itertools.pairwise(lines):
            # a line under another line of text is a new item, never the rest of a sentence
            assert not before or not line or re.match(r"• |\d+\. |<b>", line) or (
                before.startswith("• ") and not line[:1].islower()), (path.name, line)
    first = to_html(rules_text("stud_poker", lang) or "").split("\n\n")[1]
    assert first == {
        "en": "Play chips only. One 52-card deck, 2 to 10 players. Standard poker hands: the "
              "ace is high, or low in A-2-3-4-5; suits never break ties.",
        "ru": "Игра только на фишки. Одна колода в 52 карты, от 2 до 10 игроков. Обычное "
              "старшинство комбинаций: туз старший, а в стрите A-2-3-4-5 — младший; масти при "
              "равенстве не учитываются."}[lang]


def test_rules_take_a_game_by_any_name_players_call_it() -> None:
    assert [game_of(name) for name in (
        "twenty-one", "Twenty-one", "stud", "Chemin de fer", "очко", "ОЧКО", "21",
        "Draw poker (jackpots)", "стад-покер", "Польский банчок", "chemin_de_fer", "poker?")] == [
        "twenty_one", "twenty_one", "stud_poker", "chemin_de_fer", "twenty_one", "twenty_one",
        "twenty_one", "draw_poker", "stud_poker", "banchok", "chemin_de_fer", None]


def banchok_staking(lang: str) -> tuple[Any, Any, list[list[str]]]:
    """A banchok table where the punter names his stake: the engine, state and the group's
    keyboard as labels."""
    engine = registry.engine("banchok")
    state = engine.new_table({}, random.Random(5))
    for p in (ANN, BOB, CID):
        state = engine.apply(state, p, Join(name=NAMES[p], buy_in=1000)).state
    state = engine.apply(state, ANN, Start(), random.Random(5)).state
    for _ in range(10):
        if state.phase == "staking":
            break
        [player] = engine.awaiting(state)
        spec = next(s for s in engine.legal_actions(state, player)
                    if s.kind in ("post_bank", "cut"))
        data = {"kind": spec.kind, "offset": spec.min} if spec.kind == "cut" else {
            "kind": spec.kind}
        state = engine.apply(state, player, parse_action(engine, data)).state
    markup = screens.table_render(lang, scene(CHAT, Sight(engine, state), None, None, [],
                                              NAMES)).markup
    assert markup is not None
    return engine, state, [[b.text for b in row] for row in markup.inline_keyboard]


@pytest.mark.parametrize("lang", ["en", "ru"])
def test_banchoks_no_joining_stakes_read_like_any_stake(lang: str) -> None:
    _, _, rows = banchok_staking(lang)
    # one switch naming the way the stake is taken (it draws the keyboard again with the
    # other), then one row of amounts like any (as many rows as leave every word room on a
    # phone: see test_sandbox_buttons.py): two rows of amounts, one a way, read alike
    assert rows == {
        "en": [["🔁 Joining allowed"], ["Stake 5", "25", "75"], ["300", "✏️ amount"],
               ["🂠 My cards", "🪑 Join"], ["🚪 Leave"]],
        "ru": [["🔁 С примазкой"], ["Ставка 5", "25", "75"], ["300", "✏️ сумма"],
               ["🂠 Мои карты", "🪑 Сесть"], ["🚪 Встать"]]}[lang]


@pytest.mark.parametrize("lang", ["en", "ru"])
async def test_a_typed_no_joining_stake_forbids_joining(
        lang: str, make_host: Any, monkeypatch: pytest.MonkeyPatch) -> None:  # noqa: F811
    host, bot = await seated(make_host, "banchok", lang, "stake", monkeypatch)
    table = await until_phase(host, bot, "staking")
    [punter] = table.engine.awaiting(table.state)
    # the group's switch draws its keyboard again with no joining, and its ✏️ with it
    switch = next(b for b in buttons(table_message(bot)) if b.switch == 1)
    keyboard = worded(await host.presses.press(CHAT, punter, NAMES[punter], switch),
                      lang).keyboard
    assert keyboard is not None
    ask = next(b for b in (decode(k.callback_data) for row in keyboard.inline_keyboard
                           for k in row if k.callback_data)
               if isinstance(b, ActionButton) and b.kind == "stake" and b.ask and b.choice == 1)
    outcome = worded(await host.presses.press(CHAT, punter, NAMES[punter], ask), lang)
    assert punter == CID and outcome.prompt is not None
    assert i18n.plain(outcome.prompt[0]) == {
        "en": "Cid, Stake (No joining): how much? 5–300",
        "ru": "Cid, Ставка (Без примазки): сколько? 5–300"}[lang]
    assert await host.presses.typed_amount(CHAT, punter, NAMES[punter], "50") is None
    await host.idle()
    # his 50 went with the choice whose ✏️ he pressed: nobody could join it
    assert next(line for line in i18n.plain(table_message(bot).text).splitlines()
                if line.startswith("Cid (")) == {
        "en": "Cid (punter) · 💰950 · forbids joining",
        "ru": "Cid (понтёр) · 💰950 · против примазки"}[lang]


@pytest.mark.parametrize(("lang", "expected"), [
    ("en", ["Punter: Cid", "Staked on the punter's card: 25"]),
    ("ru", ["Понтёр: Cid", "Поставлено на карту понтёра: 25"])])
def test_banchoks_stakes_on_the_punters_card_say_whose_card(lang: str,
                                                            expected: list[str]) -> None:
    # "Staked on his card: 25" left the reader to guess whose card, and who staked
    facts = {"punter": who(3), "stake_total": chips(25)}
    assert [i18n.plain(line) for line in render.info_lines(lang, facts, NAMES)] == expected


@pytest.mark.parametrize(("lang", "alone", "split"), [
    ("en", "🏆 <b>Bob takes his own chips back with a pair of queens</b>",
     "🏆 <b>Bob and Cid split the pot: each takes his own chips back</b>"),
    ("ru", "🏆 <b>Bob забирает свои фишки назад: пара дам</b>",
     "🏆 <b>Bob и Cid делят банк: каждый забирает свои фишки назад</b>")])
def test_a_winner_of_nothing_is_told_what_really_happened(lang: str, alone: str,
                                                         split: str) -> None:
    # "🏆 Boris wins 0 with a pair of queens": he won only what he had put in
    queens = Hand(category="pair", ranks=(10,))
    won = Settlement(kind="coup_settled", coup=1, nets={2: 0, 1: 0}, winners=(2,),
                     hands={2: queens})
    assert results.settlement_text(lang, "draw_poker", won, NAMES, []).splitlines()[0] == alone
    tied = Settlement(kind="coup_settled", coup=1, nets={2: 0, 3: 0}, winners=(2, 3),
                      hands={2: queens, 3: queens})
    assert results.settlement_text(lang, "draw_poker", tied, NAMES, []).splitlines()[0] == split


@pytest.mark.parametrize(("lang", "game", "stale", "over"), [
    ("en", "stud_poker", "That button was for hand #1; this is hand #2.", "🏁 Hand #1 is over."),
    ("ru", "stud_poker", "Эта кнопка устарела (раздача №1); сейчас раздача №2.",
     "🏁 Раздача №1: конец."),
    ("en", "baccarat", "That button was for coup #1; this is coup #2.", "🏁 Coup #1 is over."),
    ("ru", "baccarat", "Эта кнопка устарела (кон №1); сейчас кон №2.", "🏁 Кон №1: конец.")])
def test_a_stale_press_and_a_closed_prompt_name_the_deal_as_the_game_does(
        lang: str, game: str, stale: str, over: str) -> None:
    refused = Refused(HostReason.STALE_COUP, pressed=1, coup=2, game=game)
    assert answers.refusal_text(lang, refused) == stale
    assert screens.prompt_outcome(lang, 2, None, "", (), True, game=game, coup=1) == over
