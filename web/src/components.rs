//! The app's components. Each is small and pure: props in, HTML out.
//! Only [`Workspace`] reads the app context; it hands plain data down.

mod activity_log;
mod app_header;
mod rows_view;
mod table_list;
mod workspace;

pub use activity_log::ActivityLog;
pub use app_header::AppHeader;
pub use rows_view::RowsView;
pub use table_list::TableList;
pub use workspace::Workspace;
