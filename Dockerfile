FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    DATA_DIR=/data

WORKDIR /app
COPY pyproject.toml README.md ./
COPY games ./games
COPY storage ./storage
COPY bot ./bot
COPY sandbox ./sandbox
RUN pip install ".[postgres,sandbox]" \
    && useradd --create-home --uid 10001 banco \
    && mkdir -p /data && chown banco:banco /data

USER banco
VOLUME ["/data"]
# Without BOT_TOKEN the bot starts the local sandbox on SANDBOX_HOST:SANDBOX_PORT
# (set SANDBOX_HOST=0.0.0.0 and publish 8081 to try it from a browser).
EXPOSE 8081
CMD ["python", "-m", "bot"]
