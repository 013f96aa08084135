// Starts Swagger UI on the API docs page (kept out of the page so the CSP needs no inline script).
window.addEventListener("DOMContentLoaded", function () {
  window.ui = SwaggerUIBundle({
    url: document.body.dataset.openapiUrl,
    dom_id: "#swagger-ui",
    deepLinking: true,
  });
});
