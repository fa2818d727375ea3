"""The bot's texts, one module per language (en, ru); bot.view.i18n assembles and uses them."""
