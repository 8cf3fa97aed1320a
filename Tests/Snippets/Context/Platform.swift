// What every snippet module gets: on Linux, the little of UIKit the view controllers use. It
// stands in for a framework, not for anything the text should define.
#if !canImport(UIKit)
  @MainActor class UITableView {
    func reloadData() {}
  }

  @MainActor class UITableViewController {
    let tableView = UITableView()
    func viewDidLoad() {}
  }
#endif
