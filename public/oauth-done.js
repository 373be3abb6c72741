// The OAuth callback page's one script (a file, so the page's policy allows no inline script):
// tells the chat that opened this window how the connection went, then closes it; opened in
// place, it returns to the conversation. Same origin only.
(function () {
  var self = document.currentScript;
  var message = JSON.parse(self.getAttribute("data-message"));
  var chat = self.getAttribute("data-chat");
  if (window.opener && !window.opener.closed) {
    window.opener.postMessage(message, location.origin);
    setTimeout(function () {
      window.close();
    }, 600);
  } else {
    setTimeout(function () {
      location.replace(chat);
    }, 900);
  }
})();
