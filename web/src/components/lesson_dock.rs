//! The lesson at work, and the way into the first one.
//!
//! [`LessonDock`] sits at the top of the left column while a lesson runs,
//! whichever tab is open below it: the task, the hint, *Check* and the
//! verdict stay on screen beside the row-key designer (Schema tab) and the
//! console, so the learner never has to switch away from the editor the
//! task needs. The task scrolls inside the dock; the buttons and the
//! verdict do not.
//!
//! [`StartHere`] greets a first-time visitor with the first lesson.

use std::rc::Rc;

use yew::prelude::*;

use wasm_bindgen::JsCast;

use super::lessons_panel::{text_html, verdict_html};
use crate::state::learn::{LearnAction, LeftTab};
use crate::view_model::learn::{LessonDetail, SampleChoice};

/// How many sample rows a lesson that keeps some writes of its design:
/// its own small number by default, or one of the design data bar's
/// sizes (every lesson then keeps that many, until the learner picks the
/// lesson's own again).
pub(super) fn sample_picker(choice: &SampleChoice, on_action: &Callback<LearnAction>) -> Html {
    let own = choice.lesson_rows;
    let on_change = {
        let on_action = on_action.clone();
        Callback::from(move |e: Event| {
            let value = e
                .target()
                .and_then(|t| t.dyn_into::<web_sys::HtmlSelectElement>().ok())
                .and_then(|s| s.value().parse::<u64>().ok());
            if let Some(n) = value {
                on_action.emit(LearnAction::SampleRows((n != own).then_some(n)));
            }
        })
    };
    html! {
        <label class="lesson-sample"
            title="The lesson fills its table with rows of its design. Its own small number is quick; a bigger table shows more tablets and a fuller Key Visualizer, and takes longer to write.">
            <span>{ "Sample rows" }</span>
            <select onchange={on_change}>
                { for choice.options.iter().map(|(n, label)| html! {
                    <option value={n.to_string()} selected={*n == choice.rows}>{ label.clone() }</option>
                }) }
            </select>
        </label>
    }
}

/// Props of [`LessonDock`].
#[derive(Properties, PartialEq)]
pub struct LessonDockProps {
    /// The running lesson.
    pub lesson: Rc<LessonDetail>,
    /// How many lessons there are.
    pub total: usize,
    /// Dispatch a learning action.
    pub on_action: Callback<LearnAction>,
    /// The sample-size picker, for a lesson that keeps sample rows.
    #[prop_or_default]
    pub sample: Option<SampleChoice>,
}

/// Brings the row-key designer into view (it is under the tables in the
/// Schema tab), once the tab is drawn.
fn show_designer(on_action: &Callback<LearnAction>) {
    on_action.emit(LearnAction::Tab(LeftTab::Schema));
    gloo::timers::callback::Timeout::new(0, || {
        if let Some(el) = gloo::utils::document().get_element_by_id("kd-title") {
            el.scroll_into_view();
        }
    })
    .forget();
}

/// The running lesson, docked above the left column's tabs.
#[component(LessonDock)]
pub fn lesson_dock(props: &LessonDockProps) -> Html {
    let l = &props.lesson;
    let act = |a: LearnAction| {
        let on_action = props.on_action.clone();
        Callback::from(move |_: MouseEvent| on_action.emit(a.clone()))
    };
    let on_hint = {
        let on_action = props.on_action.clone();
        let id = l.id.clone();
        Callback::from(move |e: Event| {
            let open = e
                .target_unchecked_into::<web_sys::HtmlElement>()
                .has_attribute("open");
            if open {
                on_action.emit(LearnAction::HintSeen(id.clone()));
            }
        })
    };
    let to_designer = {
        let on_action = props.on_action.clone();
        Callback::from(move |_: MouseEvent| show_designer(&on_action))
    };
    // A design lesson opens with the designer in view.
    {
        let on_action = props.on_action.clone();
        let has_design = l.has_design;
        use_effect_with(l.id.clone(), move |_| {
            if has_design {
                show_designer(&on_action);
            }
        });
    }
    let passed = l.verdict.as_ref().is_some_and(|v| v.passed);
    html! {
        <section class="lesson-dock" aria-label="Lesson in progress">
            <header class="dock-head">
                <p class="lesson-kicker">
                    { format!("Lesson {} of {} · in progress", l.number, props.total) }
                </p>
                <h2 class="dock-title" id="dock-title">{ l.title.clone() }</h2>
            </header>
            <div class="dock-text lesson" tabindex="0" aria-label="The lesson's task">
                <h3 class="lesson-section">{ "Your task" }</h3>
                { text_html(&l.task) }
                if !l.goals.is_empty() {
                    <ul class="lesson-goals" aria-label="What the check looks for">
                        { for l.goals.iter().map(|g| html! { <li>{ g.clone() }</li> }) }
                    </ul>
                }
                <details class="lesson-hint" ontoggle={on_hint}>
                    <summary>{ "Hint" }</summary>
                    { text_html(&l.hint) }
                </details>
                <details class="lesson-hint">
                    <summary>{ "Why it matters" }</summary>
                    { text_html(&l.goal) }
                </details>
            </div>
            <div class="lesson-actions dock-actions">
                <button type="button" class="button primary" onclick={act(LearnAction::Check)}>{ "Check" }</button>
                if l.has_design {
                    <button type="button" class="button small" onclick={to_designer}>{ "Row-key designer" }</button>
                }
                <button type="button" class="button small" onclick={act(LearnAction::Start(l.id.clone()))}>{ "Restart" }</button>
                <button type="button" class="button small" onclick={act(LearnAction::Stop)}
                    title="Ends the lesson: its tables go, and the tables you had before it come back">
                    { "Leave lesson" }
                </button>
                if let Some(choice) = &props.sample {
                    { sample_picker(choice, &props.on_action) }
                }
            </div>
            if let Some(v) = &l.verdict {
                <div class="dock-verdict" tabindex="0" role="group" aria-label="The check's result">
                    { verdict_html(v) }
                    if passed && !l.takeaway.is_empty() {
                        <div class="lesson-takeaway lesson">
                            <h3 class="lesson-section">{ "Takeaway" }</h3>
                            { text_html(&l.takeaway) }
                        </div>
                    }
                    if passed && let Some(next) = l.next.clone() {
                        <button type="button" class="button small" onclick={act(LearnAction::Start(next))}>{ "Start the next lesson →" }</button>
                    }
                </div>
            }
        </section>
    }
}

/// Props of [`StartHere`].
#[derive(Properties, PartialEq)]
pub struct StartHereProps {
    /// The first lesson.
    pub lesson: Rc<LessonDetail>,
    /// Dispatch a learning action.
    pub on_action: Callback<LearnAction>,
}

/// A first-time visitor's way in: the first lesson, or the list.
#[component(StartHere)]
pub fn start_here(props: &StartHereProps) -> Html {
    let l = &props.lesson;
    let act = |a: LearnAction| {
        let on_action = props.on_action.clone();
        Callback::from(move |_: MouseEvent| on_action.emit(a.clone()))
    };
    html! {
        <section class="start-here" aria-labelledby="start-here-title">
            <h2 class="start-here-title" id="start-here-title">{ "New to Bigtable? Start here" }</h2>
            <p>
                { "Lesson 1, " }<strong>{ l.title.clone() }</strong>
                { ", takes a few minutes: it sets up its own table, gives you one task and checks your work. Your own tables are kept aside while it runs." }
            </p>
            <div class="lesson-actions">
                <button type="button" class="button primary" onclick={act(LearnAction::Start(l.id.clone()))}>{ "Start lesson 1" }</button>
                <button type="button" class="button small" onclick={act(LearnAction::Tab(LeftTab::Lessons))}>{ "All lessons" }</button>
                <button type="button" class="button small subtle" onclick={act(LearnAction::DismissStart)}>{ "Not now" }</button>
            </div>
        </section>
    }
}
