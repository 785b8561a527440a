// A static 404 page cannot know the requested path at build time: read it in the browser.
const path = location.pathname;
const row = document.querySelector('[data-missing-path-row]');
row.querySelector('[data-missing-path]').textContent = path;
row.hidden = false;
console.error('404: no page at', path);
const back = document.querySelector('[data-go-back]');
if (back && history.length > 1) {
  back.hidden = false;
  back.addEventListener('click', () => history.back());
}
