# Auspex for clubs: `docker compose up` (see docker-compose.yml and the README).
FROM python:3.11-slim

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /srv/auspex

COPY pyproject.toml constraints.txt README.md ./
COPY app ./app
RUN pip install --no-cache-dir -c constraints.txt . && useradd --system --home /srv/auspex auspex

COPY alembic.ini ./
COPY migrations ./migrations
COPY templates ./templates
COPY static ./static
COPY translations ./translations
COPY data ./data

USER auspex
EXPOSE 8000
HEALTHCHECK --interval=30s --timeout=5s --retries=3 \
  CMD python -c "import urllib.request,sys; sys.exit(urllib.request.urlopen('http://127.0.0.1:8000/healthz').status != 200)"
# Migrations and starter data once, then several workers (the app is stateless). Forwarded
# headers are believed by the app from W40K_TRUSTED_PROXIES only, never by uvicorn from anyone.
# uvloop and httptools (uvicorn[standard]) named, not left to "auto": without them uvicorn would
# quietly fall back to asyncio's loop and h11, which cost more CPU per request (issue 21).
# No access log by default: a line per request cost some 0.2 ms of CPU (8 % of a tournament
# write-refresh cycle, issue 21); the proxy in front can log requests. UVICORN_ACCESS_LOG=true
# (uvicorn reads it) turns it back on.
ENV UVICORN_ACCESS_LOG=false
CMD ["sh", "-c", "auspex check && auspex migrate && auspex seed && exec uvicorn app.asgi:app --host 0.0.0.0 --port 8000 --workers ${WORKERS:-4} --loop uvloop --http httptools --no-proxy-headers"]
