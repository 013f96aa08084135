"""Browser pages of accounts: register, log in and out, profile and API tokens."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse
from pydantic import ValidationError

from app.accounts import service
from app.accounts.deps import OptionalUser, WebUser, verify_csrf
from app.accounts.exceptions import EmailTaken, TokenLimitReached, TokenNotFound
from app.accounts.schemas import ProfileUpdate, Registration, TokenCreate
from app.core import security
from app.core.deps import AppSettings, DbSession
from app.core.i18n import LOCALES
from app.core.i18n import gettext as _
from app.web.context import LANG_COOKIE
from app.web.forms import field_errors
from app.web.templating import htmx_redirect, render

router = APIRouter(include_in_schema=False, dependencies=[Depends(verify_csrf)])


def safe_next(target: str | None) -> str:
    """Only a same-site relative path survives (never an open redirect, never a header that
    cannot be sent); anything else goes home."""
    return security.safe_redirect_path(target, "/")


def _client_address(request: Request) -> str:
    return request.client.host if request.client else "unknown"


def _login_response(
    request: Request, settings: AppSettings, token: str, target: str
) -> HTMLResponse:
    response = htmx_redirect(request, target)
    response.set_cookie(
        settings.session_cookie,
        token,
        max_age=settings.session_ttl_hours * 3600,
        httponly=True,
        samesite="lax",
        secure=settings.secure_cookies,
    )
    return response


@router.get("/register")
def register_page(request: Request, user: OptionalUser) -> HTMLResponse:
    if user is not None:
        return htmx_redirect(request, "/")
    return render(request, "accounts/register.html", {"form": {}, "errors": {}})


@router.post("/register")
def register(
    request: Request,
    db: DbSession,
    settings: AppSettings,
    email: Annotated[str, Form(max_length=254)] = "",
    display_name: Annotated[str, Form(max_length=200)] = "",
    password: Annotated[str, Form(max_length=1024)] = "",
    password_confirm: Annotated[str, Form(max_length=1024)] = "",
    preferred_language: Annotated[str, Form(max_length=8)] = "",
) -> HTMLResponse:
    form = {
        "email": email,
        "display_name": display_name,
        "preferred_language": preferred_language,
    }
    errors: dict[str, str] = {}
    language = preferred_language if preferred_language in LOCALES else request.state.locale
    try:
        data = Registration(
            email=email,
            display_name=display_name,
            password=password,
            preferred_language=language,
        )
    except ValidationError as exc:
        errors = field_errors(exc)
        data = None
    if password != password_confirm:
        errors.setdefault("password_confirm", _("The two passwords differ."))
    if data is not None and not errors:
        try:
            user = service.register(db, data)
        except EmailTaken:
            errors["email"] = _("An account with this e-mail already exists.")
        else:
            token = service.start_session(db, settings, user)
            return _login_response(request, settings, token, "/")
    return render(
        request, "accounts/register.html", {"form": form, "errors": errors}, status_code=422
    )


@router.get("/login")
def login_page(
    request: Request, user: OptionalUser, settings: AppSettings, next: str = "/"
) -> HTMLResponse:
    if user is not None:
        return htmx_redirect(request, safe_next(next))
    expired = bool(getattr(request.state, "session_expired", False))
    response = render(
        request,
        "accounts/login.html",
        {"next": safe_next(next), "error": None, "expired": expired, "email": ""},
    )
    if expired:
        response.delete_cookie(settings.session_cookie)
    return response


@router.post("/login")
def login(
    request: Request,
    db: DbSession,
    settings: AppSettings,
    email: Annotated[str, Form(max_length=254)] = "",
    password: Annotated[str, Form(max_length=1024)] = "",
    next: Annotated[str, Form(max_length=2000)] = "/",
) -> HTMLResponse:
    user = service.authenticate(db, settings, email.strip(), password, _client_address(request))
    if user is None:
        return render(
            request,
            "accounts/login.html",
            {
                "next": safe_next(next),
                "error": _("The e-mail or the password is wrong."),
                "expired": False,
                "email": email,
            },
            status_code=401,
        )
    request.state.locale = user.preferred_language
    old = request.cookies.get(settings.session_cookie)
    if old:
        service.end_session(db, old)
    token = service.start_session(db, settings, user)
    return _login_response(request, settings, token, safe_next(next))


@router.post("/logout")
def logout(request: Request, db: DbSession, settings: AppSettings) -> HTMLResponse:
    token = request.cookies.get(settings.session_cookie)
    if token:
        service.end_session(db, token)
    response = htmx_redirect(request, "/")
    response.delete_cookie(settings.session_cookie)
    return response


@router.post("/language")
def set_language(
    request: Request,
    db: DbSession,
    settings: AppSettings,
    user: OptionalUser,
    language: Annotated[str, Form(max_length=8)] = "en",
    next: Annotated[str, Form(max_length=2000)] = "/",
) -> HTMLResponse:
    if language not in LOCALES:
        language = "en"
    if user is not None:
        service.update_profile(db, user, ProfileUpdate(preferred_language=language))
    response = htmx_redirect(request, safe_next(next))
    response.set_cookie(
        LANG_COOKIE,
        language,
        max_age=365 * 24 * 3600,
        samesite="lax",
        secure=settings.secure_cookies,
    )
    return response


def _account_page(
    request: Request,
    db: DbSession,
    user: WebUser,
    *,
    new_token: str | None = None,
    errors: dict[str, str] | None = None,
    saved: bool = False,
    status_code: int = 200,
) -> HTMLResponse:
    return render(
        request,
        "accounts/account.html",
        {
            "tokens": service.list_tokens(db, user),
            "new_token": new_token,
            "errors": errors or {},
            "saved": saved,
        },
        block="tokens" if new_token or request.headers.get("hx-target") == "tokens" else None,
        status_code=status_code,
    )


@router.get("/account")
def account(request: Request, db: DbSession, user: WebUser) -> HTMLResponse:
    return _account_page(request, db, user)


@router.post("/account")
def update_account(
    request: Request,
    db: DbSession,
    user: WebUser,
    display_name: Annotated[str, Form(max_length=200)] = "",
    preferred_language: Annotated[str, Form(max_length=8)] = "en",
) -> HTMLResponse:
    try:
        data = ProfileUpdate(
            display_name=display_name,
            preferred_language=preferred_language,
        )
    except ValidationError as exc:
        return _account_page(request, db, user, errors=field_errors(exc), status_code=422)
    service.update_profile(db, user, data)
    request.state.locale = user.preferred_language
    return _account_page(request, db, user, saved=True)


@router.post("/account/tokens")
def create_token(
    request: Request,
    db: DbSession,
    user: WebUser,
    name: Annotated[str, Form(max_length=200)] = "",
) -> HTMLResponse:
    try:
        data = TokenCreate(name=name)
    except ValidationError as exc:
        return _account_page(request, db, user, errors=field_errors(exc), status_code=422)
    try:
        created = service.create_token(db, user, data)
    except TokenLimitReached as exc:
        errors = {"name": exc.detail}
        return _account_page(request, db, user, errors=errors, status_code=exc.status)
    return _account_page(request, db, user, new_token=created.secret)


@router.post("/account/tokens/{token_id}/revoke")
def revoke_token(request: Request, db: DbSession, user: WebUser, token_id: int) -> HTMLResponse:
    try:
        service.revoke_token(db, user, token_id)
    except TokenNotFound:
        return _account_page(
            request, db, user, errors={"tokens": _("No such API token.")}, status_code=404
        )
    return htmx_redirect(request, "/account")
