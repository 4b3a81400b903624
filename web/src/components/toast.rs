//! The status line's message (a toast): it goes by itself after its
//! lifetime, except while the user reads it (the pointer over it) or
//! reaches it with the keyboard (focus inside it); then it waits, and its
//! full time starts again once the pointer and the focus have left.

use yew::prelude::*;

use super::rich_text::inline;
use crate::state::Notice;

/// Props of [`Toast`].
#[derive(Properties, PartialEq)]
pub struct ToastProps {
    /// The message.
    pub notice: Notice,
    /// The × button.
    pub on_dismiss: Callback<()>,
    /// Its time is up (the message it was for).
    pub on_expire: Callback<Notice>,
}

/// What holds a toast on screen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
struct Held {
    pointer: bool,
    focus: bool,
}

impl Held {
    fn any(self) -> bool {
        self.pointer || self.focus
    }
}

/// One message with its dismiss button and its own timer.
#[component(Toast)]
pub fn toast(props: &ToastProps) -> Html {
    let held = use_state(Held::default);
    {
        let on_expire = props.on_expire.clone();
        use_effect_with(
            (props.notice.clone(), held.any()),
            move |(notice, held): &(Notice, bool)| {
                let timer = (!*held).then(|| {
                    let notice = notice.clone();
                    gloo::timers::callback::Timeout::new(notice.lifetime_ms(), move || {
                        on_expire.emit(notice);
                    })
                });
                move || drop(timer)
            },
        );
    }
    let pointer = |h: &mut Held, on| h.pointer = on;
    let focus = |h: &mut Held, on| h.focus = on;
    let on_dismiss = {
        let cb = props.on_dismiss.clone();
        Callback::from(move |_: MouseEvent| cb.emit(()))
    };
    let n = &props.notice;
    html! {
        <div
            class={classes!("notice", n.error.then_some("notice-error"))}
            data-held={held.any().to_string()}
            onmouseenter={hold::<MouseEvent>(&held, pointer, true)}
            onmouseleave={hold::<MouseEvent>(&held, pointer, false)}
            onfocusin={hold::<FocusEvent>(&held, focus, true)}
            onfocusout={hold::<FocusEvent>(&held, focus, false)}
        >
            <span class="notice-text" title={n.text.clone()}>{ inline(&n.text) }</span>
            <button type="button" class="link-button" onclick={on_dismiss} aria-label="Dismiss the message">{ "×" }</button>
        </div>
    }
}

/// A callback that sets one of the holds on or off.
fn hold<E>(held: &UseStateHandle<Held>, change: fn(&mut Held, bool), on: bool) -> Callback<E> {
    let held = held.clone();
    Callback::from(move |_: E| {
        let mut next = *held;
        change(&mut next, on);
        held.set(next);
    })
}
