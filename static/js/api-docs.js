// Starts Swagger UI on the API docs page (kept out of the page so the CSP needs no inline script).
window.addEventListener("DOMContentLoaded", function () {
  window.ui = SwaggerUIBundle({
    url: document.body.dataset.openapiUrl,
    dom_id: "#swagger-ui",
    deepLinking: true,
    // "Try it out" while logged in on this site: the browser sends the session cookie, so an
    // unsafe call repeats this page's CSRF token (a bearer token from Authorize needs none).
    requestInterceptor: function (request) {
      var method = (request.method || "GET").toUpperCase();
      if (["GET", "HEAD", "OPTIONS"].indexOf(method) === -1) {
        request.headers["X-CSRF-Token"] = document.body.dataset.csrfToken;
      }
      return request;
    },
  });
});
