FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    DATA_DIR=/data \
    REQUIRE_TOKEN=1 \
    HEALTH_HOST=0.0.0.0 \
    HEALTH_PORT=9090

WORKDIR /app
COPY pyproject.toml README.md ./
COPY games ./games
COPY storage ./storage
COPY bot ./bot
COPY sandbox ./sandbox
RUN pip install ".[postgres,sandbox]" \
    && useradd --create-home --uid 10001 banco \
    && mkdir -p /data && chown banco:banco /data

# never root: the bot only needs /data (SQLite, the sandbox's state)
USER banco
VOLUME ["/data"]
# Without BOT_TOKEN the bot stops at once with a message (REQUIRE_TOKEN); SANDBOX=1 starts the
# local sandbox instead on SANDBOX_HOST:SANDBOX_PORT (set SANDBOX_HOST=0.0.0.0, publish 8081).
# 8080: webhook mode (WEBHOOK_PORT); 8088: the Mini App (WEBAPP_PORT); 9090: /healthz,
# /readyz, /metrics (HEALTH_PORT).
EXPOSE 8080 8081 8088 9090
HEALTHCHECK --interval=15s --timeout=5s --start-period=30s --retries=3 \
    CMD ["python", "-m", "bot.healthcheck"]
CMD ["python", "-m", "bot"]
