/* MM Studio behaviour kit, our own code, MIT licence (resources/behaviours/README.md).
 * A quiz that scores.
 * Markup: <form data-mm-behaviour~="quiz"> holding one <fieldset data-mm-answer="VALUE"> per
 * question (a <legend> and radio inputs sharing a name; VALUE is the right one's value), a submit
 * button and an optional [data-mm-quiz-result]. Without JS the questions show and can be
 * answered. With JS submitting marks each question "Correct" or "Not quite — the answer is …"
 * and shows "You scored 2 of 3" (role="status", focused). */
(function () {
  'use strict';
  function init(form) {
    if (form.getAttribute('data-mm-ready')) return;
    form.setAttribute('data-mm-ready', 'quiz');
    var questions = Array.prototype.slice.call(form.querySelectorAll('fieldset[data-mm-answer]'));
    var result = form.querySelector('[data-mm-quiz-result]');
    if (!result) {
      result = document.createElement('p');
      result.setAttribute('data-mm-quiz-result', '');
      form.appendChild(result);
    }
    result.setAttribute('role', 'status');
    result.setAttribute('tabindex', '-1');
    result.hidden = true;
    form.addEventListener('submit', function (e) {
      e.preventDefault();
      var score = 0;
      questions.forEach(function (q) {
        var answer = q.getAttribute('data-mm-answer');
        var chosen = q.querySelector('input:checked');
        var right = q.querySelector('input[value="' + answer.replace(/["\\]/g, '\\$&') + '"]');
        var rightText = right && right.labels && right.labels[0] ? right.labels[0].textContent.trim() : answer;
        var note = q.querySelector('.mm-quiz-feedback');
        if (!note) {
          note = document.createElement('p');
          note.className = 'mm-quiz-feedback';
          q.appendChild(note);
        }
        var ok = !!chosen && chosen.value === answer;
        if (ok) score += 1;
        q.setAttribute('data-mm-correct', ok ? 'true' : 'false');
        note.textContent = ok ? 'Correct' : (chosen ? 'Not quite \u2014 the answer is ' : 'No answer \u2014 the answer is ') + (ok ? '' : rightText);
      });
      var template = form.getAttribute('data-mm-result') || 'You scored {score} of {total}';
      result.textContent = template.replace('{score}', String(score)).replace('{total}', String(questions.length));
      result.hidden = false;
      form.setAttribute('data-mm-score', String(score));
      result.focus();
    });
  }
  function start() {
    document.querySelectorAll('form[data-mm-behaviour~="quiz"]').forEach(init);
  }
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', start);
  else start();
})();
