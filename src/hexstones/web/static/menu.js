// Every page's Menu button: on a phone (where app.css shows it) the pages' links are folded
// under it; it opens and closes them, and Escape closes them with the focus back on it.
const button = document.querySelector("header.top .menu-button");
const nav = document.getElementById("site-nav");
if (button && nav) {
  const open = (yes) => button.setAttribute("aria-expanded", yes ? "true" : "false");
  button.addEventListener("click", () => open(button.getAttribute("aria-expanded") !== "true"));
  nav.addEventListener("keydown", (e) => {
    if (e.key === "Escape" && button.getAttribute("aria-expanded") === "true") { open(false); button.focus(); }
  });
}
