/* Stand-in runtime sources for the golden test: the docs table reads which natives are real. */
eng_value_t rt_demo_configure(const rt_demo_configure_args_t *args)
{
	return eng_number(1);
}

eng_value_t rt_demo_watch(const rt_demo_watch_args_t *args)
{
	return rt_not_implemented("demo.watch");
}
